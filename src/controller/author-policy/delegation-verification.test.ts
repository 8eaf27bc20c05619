import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CompiledGraph } from "../../graph/index.js";
import type { KubeObject } from "../../kube/index.js";
import { AuthorPolicyState, DelegationVerdicts, SETTLE_MS, type ControllerContext } from "../context/index.js";
import { DELEGATION_POLICY_ID, DELEGATION_POLICY_KEY, delegationPolicyObjects } from "./delegation-policy-objects.js";
import { delegationWriteKey, verifyDelegation } from "./delegation-verification.js";

const graph = {
  dialect: "cel",
  nodes: [
    {
      id: "ns",
      type: "resource",
      apiVersion: "v1",
      kind: "Namespace",
      template: { apiVersion: "v1", kind: "Namespace", metadata: { name: "${schema.spec.t}" } },
    },
  ],
} as unknown as CompiledGraph;
const rgd = (rv: string, by = "admin"): KubeObject => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "ResourceGraphDefinition",
  metadata: {
    name: "ws",
    generation: 1,
    resourceVersion: rv,
    annotations: {
      "kro.run/author-check-exempt": "ns",
      "kro.run/delegated-by": by,
      "kro.run/delegated-groups": "system:masters",
    },
  },
});
const stored = (rv: string) =>
  delegationPolicyObjects().map((o) => ({ ...o, metadata: { ...(o.metadata as object), resourceVersion: rv } }));

const clock = { now: 1_000_000 };

function context(allowed: (user: string) => boolean): { ctx: ControllerContext; reviews: string[] } {
  const authorPolicies = new AuthorPolicyState(() => clock.now);
  authorPolicies.expect(DELEGATION_POLICY_KEY, DELEGATION_POLICY_ID, delegationPolicyObjects());
  authorPolicies.applied(DELEGATION_POLICY_KEY, stored("100"));
  const reviews: string[] = [];
  const client = {
    resourceFor: () => Promise.resolve({ group: "", resource: "namespaces", namespaced: false }),
    review: (o: { spec: { user: string; resourceAttributes: { verb: string } } }) => {
      reviews.push(`${o.spec.user} ${o.spec.resourceAttributes.verb}`);
      return Promise.resolve({ status: { allowed: allowed(o.spec.user) } });
    },
  };
  const ctx = {
    client,
    authorPolicies,
    delegations: new DelegationVerdicts(60_000),
    options: { authorCheck: "Enforced" },
    policySync: { ticket: () => 0, caughtUp: () => Promise.resolve() },
  } as unknown as ControllerContext;
  return { ctx, reviews };
}

describe("verifyDelegation", () => {
  it("applies an exemption whose recorded author holds the rights, asking once per right (cached)", async () => {
    const { ctx, reviews } = context(() => true);
    const outcome = await verifyDelegation(ctx, rgd("150"), graph);
    assert.deepEqual(outcome.policy.authorCheckExempt, ["ns"]);
    assert.equal(outcome.condition?.status, "True");
    assert.deepEqual(reviews, ["admin create", "admin patch", "admin delete"]);
    await verifyDelegation(ctx, rgd("151"), graph);
    assert.equal(reviews.length, 3, "answers are cached for the re-verification period");
  });

  it("does not apply what the recorded author lacks, naming user, child, verb and scope", async () => {
    const { ctx } = context((user) => user !== "dave");
    const outcome = await verifyDelegation(ctx, rgd("150", "dave"), graph);
    assert.deepEqual(outcome.policy.authorCheckExempt, []);
    assert.equal(outcome.condition?.reason, "DelegatorLacksRights");
    assert.match(
      outcome.condition.message ?? "",
      /user dave \(groups system:masters\), who delegates \(kro\.run\/delegated-by\): may not create namespaces \(cluster-scoped\), which resource "ns" needs/,
    );
  });

  it("does not apply a delegation written while kro-delegation was deleted, even naming an administrator", async () => {
    const { ctx } = context(() => true);
    // Deleted at revision 200, the forged RGD stored at 205 (its event seen before the delete event), restored at 230.
    ctx.authorPolicies.seen(delegationWriteKey("ws"), "205", 0);
    ctx.authorPolicies.observe(
      DELEGATION_POLICY_ID,
      "ValidatingAdmissionPolicyBinding",
      "kro-delegation",
      undefined,
      "200",
    );
    ctx.authorPolicies.expect(DELEGATION_POLICY_KEY, DELEGATION_POLICY_ID, delegationPolicyObjects());
    ctx.authorPolicies.applied(DELEGATION_POLICY_KEY, stored("230"));
    const outcome = await verifyDelegation(ctx, rgd("240"), graph);
    assert.equal(outcome.condition?.reason, "DelegationUnverified");
    assert.deepEqual(outcome.policy.authorCheckExempt, []);
    // Written again under the policy, once the API server surely loaded it: judged afresh, and it holds.
    clock.now += SETTLE_MS;
    ctx.authorPolicies.seen(delegationWriteKey("ws"), "300", 0);
    assert.equal(
      (await verifyDelegation(ctx, { ...rgd("300"), metadata: { ...rgd("300").metadata, generation: 2 } }, graph))
        .condition?.status,
      "True",
    );
  });

  it("needs nothing for an RGD that delegates nothing", async () => {
    const { ctx, reviews } = context(() => false);
    const plain = { ...rgd("1"), metadata: { name: "plain", resourceVersion: "1" } };
    assert.deepEqual(await verifyDelegation(ctx, plain, graph), {
      policy: { allowCrossNamespace: false, allowClusterScoped: false, authorCheck: true, authorCheckExempt: [] },
      condition: undefined,
    });
    assert.deepEqual(reviews, []);
  });
});
