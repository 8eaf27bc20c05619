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
          ],
        },
        matchConditions: [{ name: "delegates", expression: delegatesCel("object") }],
        validations: [
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
