/**
 * The instance-author permission check as data (docs/design/authorization.md): per RGD, a
 * ValidatingAdmissionPolicy + binding on the instance kind whose CEL asks the API server's own
 * authorizer whether the *requesting user* may do what the controller will do for them
 * (author-checks.ts says which checks, where). Pure: the kinds' plurals and scopes arrive resolved.
 */
import { createHash } from "node:crypto";
import { ANNOTATIONS, KRO_API_VERSION, LABELS, RGD } from "../../api/index.js";
import type { ContainmentPolicy } from "../../graph/index.js";
import {
  authorChecks,
  type AuthorCheck,
  type NestedGraph,
  type PolicyNode,
  type ResolvedChildKind,
} from "./author-checks.js";
import { messageExpression } from "./policy-messages.js";
import { annotation } from "./delegation-policy-objects.js";

export { authorChecks, kindKey, type AuthorCheck, type ResolvedChildKind } from "./author-checks.js";

/** An authorization check costs 350,000 and one policy evaluation may spend 10,000,000 (k8s.io/apiserver cel config). */
export const CHECKS_PER_POLICY = 25;

const VAP_API_VERSION = "admissionregistration.k8s.io/v1";

export interface AuthorPolicyInput {
  readonly rgdName: string;
  readonly rgdUid: string;
  readonly instance: {
    readonly group: string;
    readonly version: string;
    readonly plural: string;
    readonly namespaced: boolean;
  };
  readonly nodes: readonly PolicyNode[];
  readonly kinds: ReadonlyMap<string, ResolvedChildKind>;
  readonly policy: ContainmentPolicy;
  /** The controller's own user: its writes to instances (finalizer, labels, inventory) are not re-checked. */
  readonly controllerUser?: string;
  /** The RGD serving a child's kind, whose checks are composed in (author-checks.ts). */
  readonly nested?: (apiVersion: string, kind: string) => NestedGraph | undefined;
}

const quote = (text: string) => JSON.stringify(text);

export function checksOf(input: AuthorPolicyInput): AuthorCheck[] {
  return authorChecks({
    nodes: input.nodes,
    kinds: input.kinds,
    policy: input.policy,
    instanceNamespaced: input.instance.namespaced,
    ...(input.nested === undefined ? {} : { nested: input.nested }),
  });
}

function authorizerCall(check: AuthorCheck, precise: boolean): string {
  let call = `authorizer.group(${quote(check.group)}).resource(${quote(check.resource)})`;
  if (precise && check.namespace !== undefined) call += `.namespace(${check.namespace})`;
  if (precise && check.name !== undefined) call += `.name(${check.name})`;
  return `${call}.check(${quote(check.verb)}).allowed()`;
}

/** `guarded ? precise : strict`: a field the scope reads is absent at admission → the strictest scope. */
function scoped(check: AuthorCheck, precise: string, strict: string): string {
  return check.guards.length === 0 ? precise : `((${check.guards.join(" && ")}) ? ${precise} : ${strict})`;
}

function validationOf(check: AuthorCheck, rgdName: string): Record<string, unknown> {
  const allowed = scoped(
    check,
    authorizerCall(check, true),
    authorizerCall({ ...check, namespace: undefined, name: undefined }, false),
  );
  return {
    expression: check.when === undefined ? allowed : `!(${check.when}) || ${allowed}`,
    messageExpression: messageExpression(check, rgdName),
    reason: "Forbidden",
  };
}

/**
 * The instance's requester record (kro.run/requested-by, -groups), when present, names the writer
 * exactly (groups: absent, or exactly theirs): the write gate asks its SubjectAccessReviews for
 * this user, so nobody may record anyone else. The controller's requester webhook stamps it.
 */
export const REQUESTER_RECORD_VALIDATION = {
  expression:
    `${annotation("object", ANNOTATIONS.requestedBy)} == "" || (${annotation("object", ANNOTATIONS.requestedBy)} == request.userInfo.username` +
    ` && (${annotation("object", ANNOTATIONS.requestedGroups)} == "" || ${annotation("object", ANNOTATIONS.requestedGroups)} == request.userInfo.groups.join(",")))`,
  messageExpression: `"${ANNOTATIONS.requestedBy} must name the writer: set it to \\"" + request.userInfo.username + "\\" and ${ANNOTATIONS.requestedGroups} to \\"" + request.userInfo.groups.join(",") + "\\", or remove both (the controller's requester webhook records them)"`,
  reason: "Forbidden",
};

/** The base name of an RGD's policies (DNS subdomain, at most 253 characters with the chunk suffix). */
export function policyBaseName(rgdName: string): string {
  const base = `kro-author.${rgdName}`;
  if (base.length <= 240) return base;
  return `kro-author.${rgdName.slice(0, 200)}-${createHash("sha256").update(rgdName).digest("hex").slice(0, 10)}`;
}

/** The ValidatingAdmissionPolicies and bindings of one RGD: chunks of CHECKS_PER_POLICY checks; none when nothing is checked. */
export function authorPolicyObjects(
  input: AuthorPolicyInput,
  checks: readonly AuthorCheck[] = checksOf(input),
): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = [];
  const base = policyBaseName(input.rgdName);
  const metadata = (name: string) => ({
    name,
    labels: { [LABELS.rgdId]: input.rgdUid, [LABELS.managedBy]: "kro" },
    ownerReferences: [
      { apiVersion: KRO_API_VERSION, kind: RGD.kind, name: input.rgdName, uid: input.rgdUid, controller: true },
    ],
  });
  const matchConditions = [
    // Metadata-only writes (finalizers, owner references) change nothing the graph renders.
    {
      name: "renders-children",
      expression:
        "request.operation == 'CREATE' || object.?spec != oldObject.?spec || object.metadata.?labels != oldObject.metadata.?labels || object.metadata.?annotations != oldObject.metadata.?annotations",
    },
    ...(input.controllerUser === undefined
      ? []
      : [{ name: "not-the-controller", expression: `request.userInfo.username != ${quote(input.controllerUser)}` }]),
  ];
  for (let i = 0; i * CHECKS_PER_POLICY < checks.length; i++) {
    const name = `${base}.${i}`;
    objects.push({
      apiVersion: VAP_API_VERSION,
      kind: "ValidatingAdmissionPolicy",
      metadata: metadata(name),
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [input.instance.group],
              apiVersions: [input.instance.version],
              resources: [input.instance.plural],
              operations: ["CREATE", "UPDATE"],
            },
          ],
        },
        matchConditions,
        validations: [
          ...checks
            .slice(i * CHECKS_PER_POLICY, (i + 1) * CHECKS_PER_POLICY)
            .map((c) => validationOf(c, input.rgdName)),
          ...(i === 0 ? [REQUESTER_RECORD_VALIDATION] : []),
        ],
      },
    });
    objects.push({
      apiVersion: VAP_API_VERSION,
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: metadata(name),
      spec: { policyName: name, validationActions: ["Deny"] },
    });
  }
  return objects;
}
