/**
 * The instance-author permission check as data (docs/design/authorization.md): per RGD, a
 * ValidatingAdmissionPolicy + binding on the instance kind whose CEL asks the API server's own
 * authorizer whether the *requesting user* may do what the controller will do for them — for
 * every child: create, patch (server-side apply) and delete (prune) in the namespace it lands
 * in; get/list for external references. Pure: the kinds' plurals and scopes arrive resolved.
 */
import { createHash } from "node:crypto";
import { KRO_API_VERSION, LABELS, RGD } from "../../api/index.js";
import { classifyMetadataValue, namespaceSource, type CompiledNode, type ContainmentPolicy } from "../../graph/index.js";

/** An authorization check costs 350,000 and one policy evaluation may spend 10,000,000 (k8s.io/apiserver cel config). */
export const CHECKS_PER_POLICY = 25;
const VAP_API_VERSION = "admissionregistration.k8s.io/v1";

export interface ResolvedChildKind {
  readonly group: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

export interface AuthorPolicyInput {
  readonly rgdName: string;
  readonly rgdUid: string;
  readonly instance: { readonly group: string; readonly version: string; readonly plural: string; readonly namespaced: boolean };
  readonly nodes: readonly Pick<CompiledNode, "id" | "type" | "apiVersion" | "kind" | "template" | "templateSource">[];
  /** Plural and scope of each child kind, from discovery; an unresolved kind is checked cluster-wide under its lowercase plural guess. */
  readonly kinds: ReadonlyMap<string, ResolvedChildKind>;
  readonly policy: ContainmentPolicy;
  /** The controller's own user: its writes to instances (finalizer, labels, inventory) are not re-checked. */
  readonly controllerUser?: string;
}

export interface AuthorCheck {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  /** CEL string expression, or undefined for a cluster-wide check (all namespaces). */
  readonly namespace: string | undefined;
  readonly clusterScoped: boolean;
  /** CEL string expression, or undefined for any name. */
  readonly name: string | undefined;
  readonly nodeIds: readonly string[];
}

export const kindKey = (apiVersion: string, kind: string) => `${apiVersion}/${kind}`;
const quote = (text: string) => JSON.stringify(text);

/** `object.?spec.?a.?b.orValue(fallback)`: reads a spec field at admission without failing when it is absent. */
function specField(path: readonly string[], fallback: string): string {
  return `object.?spec${path.map((p) => `.?${p}`).join("")}.orValue(${fallback})`;
}

function namespaceExpression(node: AuthorPolicyInput["nodes"][number], kind: ResolvedChildKind, input: AuthorPolicyInput): string | undefined {
  if (!kind.namespaced) return undefined;
  const source = namespaceSource(node);
  const home = input.instance.namespaced ? "request.namespace" : undefined;
  switch (source.kind) {
    case "instance": return home;
    case "constant": return quote(source.value);
    // An empty value is defaulted to the instance's namespace at runtime; "" asks about all namespaces.
    case "spec": return specField(source.path, home ?? quote(""));
    case "dynamic":
      // Containment confines an instance-chosen namespace to the instance's own unless the RGD opted out.
      return home !== undefined && !input.policy.allowCrossNamespace ? home : undefined;
  }
}

function nameExpression(node: AuthorPolicyInput["nodes"][number]): string | undefined {
  if (node.templateSource !== undefined || node.type === "collection") return undefined;
  const template = node.template as { metadata?: { name?: unknown } } | undefined;
  const value = template?.metadata?.name;
  if (typeof value === "string" && /^\$\{\s*schema\.metadata\.name\s*\}$/.test(value)) return "object.metadata.name";
  const source = classifyMetadataValue(value);
  if (source.kind === "constant") return quote(source.value);
  if (source.kind === "spec") return specField(source.path, quote(""));
  return undefined;
}

function verbsOf(type: CompiledNode["type"]): { verb: string; named: boolean }[] {
  switch (type) {
    case "external": return [{ verb: "get", named: true }];
    case "externalCollection": return [{ verb: "list", named: false }];
    // create is never restricted by resourceNames in RBAC, so it is asked without a name.
    default: return [{ verb: "create", named: false }, { verb: "patch", named: true }, { verb: "delete", named: true }];
  }
}

/** Every distinct check the graph needs, in author order (identical checks of several nodes merged). */
export function authorChecks(input: AuthorPolicyInput): AuthorCheck[] {
  if (!input.policy.authorCheck) return [];
  const exempt = new Set(input.policy.authorCheckExempt);
  const byKey = new Map<string, { check: Omit<AuthorCheck, "nodeIds">; nodeIds: string[] }>();
  for (const node of input.nodes) {
    if (exempt.has(node.id)) continue;
    const group = node.apiVersion.includes("/") ? (node.apiVersion.split("/")[0] ?? "") : "";
    const kind = input.kinds.get(kindKey(node.apiVersion, node.kind)) ?? { group, resource: `${node.kind.toLowerCase()}s`, namespaced: false };
    const namespace = namespaceExpression(node, kind, input);
    const name = nameExpression(node);
    for (const { verb, named } of verbsOf(node.type)) {
      const check = { group: kind.group, resource: kind.resource, verb, namespace, clusterScoped: !kind.namespaced, name: named ? name : undefined };
      const key = JSON.stringify(check);
      const found = byKey.get(key);
      if (found === undefined) byKey.set(key, { check, nodeIds: [node.id] });
      else found.nodeIds.push(node.id);
    }
  }
  return [...byKey.values()].map(({ check, nodeIds }) => ({ ...check, nodeIds }));
}

function validationOf(check: AuthorCheck, rgdName: string): Record<string, unknown> {
  let call = `authorizer.group(${quote(check.group)}).resource(${quote(check.resource)})`;
  if (check.namespace !== undefined) call += `.namespace(${check.namespace})`;
  if (check.name !== undefined) call += `.name(${check.name})`;
  const what = check.group === "" ? check.resource : `${check.resource}.${check.group}`;
  const where = check.clusterScoped ? "' (cluster-scoped)'" : check.namespace === undefined ? "' in all namespaces'" : `(${check.namespace} == '' ? ' in all namespaces' : ' in namespace ' + ${check.namespace})`;
  const named = check.name === undefined ? "''" : `(${check.name} == '' ? '' : ' named ' + ${check.name})`;
  const nodes = check.nodeIds.map((id) => `"${id}"`).join(", ");
  return {
    expression: `${call}.check(${quote(check.verb)}).allowed()`,
    messageExpression: `'user ' + request.userInfo.username + ' may not ${check.verb} ${what}' + ${named} + ${where} + ${quote(`, which resource ${nodes} of ResourceGraphDefinition ${rgdName} would ${check.verb}`)}`,
    reason: "Forbidden",
  };
}

/** The base name of an RGD's policies (DNS subdomain, at most 253 characters with the chunk suffix). */
export function policyBaseName(rgdName: string): string {
  const base = `kro-author.${rgdName}`;
  if (base.length <= 240) return base;
  return `kro-author.${rgdName.slice(0, 200)}-${createHash("sha256").update(rgdName).digest("hex").slice(0, 10)}`;
}

/** The ValidatingAdmissionPolicies and bindings of one RGD: chunks of CHECKS_PER_POLICY checks; none when nothing is checked. */
export function authorPolicyObjects(input: AuthorPolicyInput): Record<string, unknown>[] {
  const checks = authorChecks(input);
  const objects: Record<string, unknown>[] = [];
  const base = policyBaseName(input.rgdName);
  const metadata = (name: string) => ({
    name,
    labels: { [LABELS.rgdId]: input.rgdUid, [LABELS.managedBy]: "kro" },
    ownerReferences: [{ apiVersion: KRO_API_VERSION, kind: RGD.kind, name: input.rgdName, uid: input.rgdUid, controller: true }],
  });
  const matchConditions = [
    // Metadata-only writes (finalizers, owner references) change nothing the graph renders.
    { name: "renders-children", expression: "request.operation == 'CREATE' || object.?spec != oldObject.?spec || object.metadata.?labels != oldObject.metadata.?labels || object.metadata.?annotations != oldObject.metadata.?annotations" },
    ...(input.controllerUser === undefined ? [] : [{ name: "not-the-controller", expression: `request.userInfo.username != ${quote(input.controllerUser)}` }]),
  ];
  for (let i = 0; i * CHECKS_PER_POLICY < checks.length; i++) {
    const name = `${base}.${i}`;
    objects.push({
      apiVersion: VAP_API_VERSION, kind: "ValidatingAdmissionPolicy", metadata: metadata(name),
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: [{ apiGroups: [input.instance.group], apiVersions: [input.instance.version], resources: [input.instance.plural], operations: ["CREATE", "UPDATE"] }] },
        matchConditions,
        validations: checks.slice(i * CHECKS_PER_POLICY, (i + 1) * CHECKS_PER_POLICY).map((c) => validationOf(c, input.rgdName)),
      },
    });
    objects.push({
      apiVersion: VAP_API_VERSION, kind: "ValidatingAdmissionPolicyBinding", metadata: metadata(name),
      spec: { policyName: name, validationActions: ["Deny"] },
    });
  }
  return objects;
}
