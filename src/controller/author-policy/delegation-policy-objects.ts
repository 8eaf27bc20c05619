/**
 * The static admission policy on ResourceGraphDefinitions that records who delegates, so
 * that a delegation cannot be forged. An RGD delegates when it exempts children from the
 * instance-author check (kro.run/author-check-exempt) or turns the check off (kro.run/author-check:
 * Disabled). Such an RGD is admitted only if kro.run/delegated-by is the writer's own username, and
 * kro.run/delegated-groups (optional) exactly their groups — whenever the delegation or the graph
 * it applies to is written (create; an update of the spec, the delegation or the recorded author).
 * Other updates (finalizers, labels, unrelated annotations) keep the recorded author as it is, so
 * nobody can re-attribute a delegation without writing it themselves. RGDs that delegate nothing
 * are not matched at all: unmodified kro RGDs need nothing new. Kubernetes 1.33 has no
 * MutatingAdmissionPolicy by default, so the writer stamps and the policy refuses a wrong stamp,
 * saying exactly what to add. Pure.
 */
import { ANNOTATIONS, KRO_GROUP, LABELS } from "../../api/index.js";

export const DELEGATION_POLICY_NAME = "kro-delegation";
/** The label value that makes policy-guard.ts watch it, and its key in context/author-policy-state.ts (no RGD can be named so). */
export const DELEGATION_POLICY_ID = "kro-delegation";
export const DELEGATION_POLICY_KEY = "kro.run/delegation-policy";

const VAP_API_VERSION = "admissionregistration.k8s.io/v1";
export const annotation = (object: string, key: string) =>
  `${object}.metadata.?annotations[?${JSON.stringify(key)}].orValue("")`;
const delegatesCel = (object: string) =>
  `(${annotation(object, ANNOTATIONS.authorCheckExempt)}.trim() != "" || ${annotation(object, ANNOTATIONS.authorCheck)}.trim().lowerAscii() == "disabled")`;
const RECORDED = [
  ANNOTATIONS.authorCheckExempt,
  ANNOTATIONS.authorCheck,
  ANNOTATIONS.delegatedBy,
  ANNOTATIONS.delegatedGroups,
];

/** CEL: this write sets (or changes) the delegation, the graph it covers, or who is recorded. */
export const WRITES_DELEGATION = [
  `request.operation == "CREATE"`,
  `!${delegatesCel("oldObject")}`,
  "object.spec != oldObject.spec",
  ...RECORDED.map((key) => `${annotation("object", key)} != ${annotation("oldObject", key)}`),
].join(" || ");

/** CEL: the recorded author is the writer (groups: absent, or exactly theirs). */
export const STAMPED_BY_WRITER =
  `${annotation("object", ANNOTATIONS.delegatedBy)} == request.userInfo.username` +
  ` && (${annotation("object", ANNOTATIONS.delegatedGroups)} == "" || ${annotation("object", ANNOTATIONS.delegatedGroups)} == request.userInfo.groups.join(","))`;

const MESSAGE =
  `"ResourceGraphDefinition " + object.metadata.name + " delegates rights to instance authors (${ANNOTATIONS.authorCheckExempt} or ${ANNOTATIONS.authorCheck}: Disabled), so it must record who delegates: add the annotations ` +
  `${ANNOTATIONS.delegatedBy}: \\"" + request.userInfo.username + "\\" and ${ANNOTATIONS.delegatedGroups}: \\"" + request.userInfo.groups.join(",") + "\\" ` +
  `(exactly your own user and groups; the controller then verifies that you hold every right you delegate)"`;

/**
 * The controller's load probe (policy-load-proof.ts): a dry-run create of an Event of this name
 * in `default`, annotated as delegating and with POLICY_PROBE_ANNOTATION naming the policy. The
 * policy matches Events of that name only, and its first rule refuses exactly that annotation,
 * so a refusal with PROBE_REFUSAL shows the API server enforces this policy now. An Event,
 * because the controller may create Events anywhere and may not create RGDs.
 */
export const POLICY_PROBE_ANNOTATION = "internal.kro.run/policy-probe";
export const PROBE_REFUSAL = "kro policy probe: this policy is in force";
export const PROBE_EVENT_NAME = "kro-policy-probe.kro-delegation";
export const PROBE_EVENT_NAMESPACE = "default";
const PROBE_RESOURCE_RULE = {
  apiGroups: [""],
  apiVersions: ["v1"],
  resources: ["events"],
  resourceNames: [PROBE_EVENT_NAME],
  operations: ["CREATE"],
};
const PROBE_VALIDATION = {
  expression: `${annotation("object", POLICY_PROBE_ANNOTATION)} != ${JSON.stringify(DELEGATION_POLICY_NAME)}`,
  message: PROBE_REFUSAL,
  reason: "Invalid",
};

/**
 * The policy without its probe: the rules that judge delegations. A cluster holding these (say,
 * written by an earlier controller version without the probe) admitted delegations under them.
 */
export function delegationRulesOf(objects: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return objects.map((object) => {
    if (object.kind !== "ValidatingAdmissionPolicy") return object;
    const spec = object.spec as {
      matchConstraints: { resourceRules: unknown[] };
      validations: unknown[];
    };
    return {
      ...object,
      spec: {
        ...spec,
        matchConstraints: {
          ...spec.matchConstraints,
          resourceRules: spec.matchConstraints.resourceRules.filter((r) => r !== PROBE_RESOURCE_RULE),
        },
        validations: spec.validations.filter((v) => v !== PROBE_VALIDATION),
      },
    };
  });
}

export function delegationPolicyObjects(): Record<string, unknown>[] {
  const metadata = {
    name: DELEGATION_POLICY_NAME,
    labels: { [LABELS.rgdId]: DELEGATION_POLICY_ID, [LABELS.managedBy]: "kro" },
  };
  const group = KRO_GROUP;
  return [
    {
      apiVersion: VAP_API_VERSION,
      kind: "ValidatingAdmissionPolicy",
      metadata,
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [group],
              apiVersions: ["*"],
              resources: ["resourcegraphdefinitions"],
              operations: ["CREATE", "UPDATE"],
            },
            PROBE_RESOURCE_RULE,
          ],
        },
        matchConditions: [{ name: "delegates", expression: delegatesCel("object") }],
        validations: [
          PROBE_VALIDATION,
          {
            expression: `!(${WRITES_DELEGATION}) || (${STAMPED_BY_WRITER})`,
            messageExpression: MESSAGE,
            reason: "Forbidden",
          },
        ],
      },
    },
    {
      apiVersion: VAP_API_VERSION,
      kind: "ValidatingAdmissionPolicyBinding",
      metadata,
      spec: { policyName: DELEGATION_POLICY_NAME, validationActions: ["Deny"] },
    },
  ];
}
