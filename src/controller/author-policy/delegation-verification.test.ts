import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CompiledGraph } from "../../graph/index.js";
import type { KubeObject } from "../../kube/index.js";
import { AuthorPolicyState, DelegationVerdicts, SETTLE_MS, type ControllerContext } from "../context/index.js";
import {
  DELEGATION_POLICY_ID,
  DELEGATION_POLICY_KEY,
  DELEGATION_POLICY_NAME,
  POLICY_PROBE_ANNOTATION,
  PROBE_REFUSAL,
  delegationPolicyObjects,
} from "./delegation-policy-objects.js";
import { delegationWriteKey, verifyDelegation } from "./delegation-verification.js";
import { probeDelay, proveDelegationPolicyLoaded } from "./policy-load-proof.js";

/** Lets every pending promise callback run (the prover's probe and list). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

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

/** The API server as the load probe sees it: whether it enforces the restored policy, and its revision. */
const apiServer = { enforces: true, revision: "1000", probes: 0 };

function context(allowed: (user: string) => boolean): {
  ctx: ControllerContext;
  reviews: string[];
  requeued: string[];
  logs: string[];
} {
  const logs: string[] = [];
  const authorPolicies = new AuthorPolicyState(() => clock.now);
  authorPolicies.expect(DELEGATION_POLICY_KEY, DELEGATION_POLICY_ID, delegationPolicyObjects());
  authorPolicies.applied(DELEGATION_POLICY_KEY, stored("100"));
  const reviews: string[] = [];
  const requeued: string[] = [];
  const client = {
    create: (
      object: { kind: string; metadata: { annotations: Record<string, string> } },
      options: { dryRun?: boolean },
    ) => {
      assert.equal(options.dryRun, true, "the probe never writes");
      assert.equal(object.kind, "Event");
      assert.equal(object.metadata.annotations[POLICY_PROBE_ANNOTATION], DELEGATION_POLICY_NAME);
      apiServer.probes++;
      return apiServer.enforces
        ? Promise.reject(new Error(`POST …: 422 Invalid: ${PROBE_REFUSAL}`))
        : Promise.resolve(object);
    },
    list: () => Promise.resolve({ metadata: { resourceVersion: apiServer.revision }, items: [] }),
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
    rgdQueue: { add: (name: string) => requeued.push(name), isShutDown: false },
    logger: {
      warn: (_: unknown, message: string) => logs.push(`warn ${message}`),
      info: (_: unknown, message: string) => logs.push(`info ${message}`),
    },
  } as unknown as ControllerContext;
  return { ctx, reviews, requeued, logs };
}

/** The binding deleted at revision `deleted`, and the controller's restore stored at `restored`. */
function deletedAndRestored(ctx: ControllerContext, deleted: string, restored: string): void {
  ctx.authorPolicies.observe(
    DELEGATION_POLICY_ID,
    "ValidatingAdmissionPolicyBinding",
    "kro-delegation",
    undefined,
    deleted,
  );
  ctx.authorPolicies.expect(DELEGATION_POLICY_KEY, DELEGATION_POLICY_ID, delegationPolicyObjects());
  ctx.authorPolicies.applied(DELEGATION_POLICY_KEY, stored(restored));
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
    apiServer.enforces = true;
    apiServer.revision = "240";
    // Deleted at revision 200, the forged RGD stored at 205 (its event seen before the delete event), restored at 230.
    ctx.authorPolicies.seen(delegationWriteKey("ws"), "205", 0);
    deletedAndRestored(ctx, "200", "230");
    proveDelegationPolicyLoaded(ctx);
    await settled();
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

  it("says at info that a restored policy is not loaded yet (every clean install), and warns once that lasts", async () => {
    for (const { loadedAfter, expected } of [
      { loadedAfter: 3, expected: ["info delegations wait for the restored policy"] },
      {
        loadedAfter: 105,
        expected: ["info delegations wait for the restored policy", "warn delegations wait for the restored policy"],
      },
    ]) {
      const { ctx, logs } = context(() => true);
      apiServer.probes = 0;
      apiServer.enforces = false;
      deletedAndRestored(ctx, "200", "230");
      let waited = 0;
      proveDelegationPolicyLoaded(ctx, () => {
        if (++waited >= loadedAfter) apiServer.enforces = true;
        return Promise.resolve();
      });
      for (let i = 0; i < 2 * loadedAfter + 5; i++) await settled();
      assert.deepEqual(logs, expected, `loaded after ${loadedAfter} probes`);
    }
  });

  it("judges writes after a restore only once the API server enforces it, up to the revision read then", async () => {
    const { ctx, requeued } = context(() => true);
    apiServer.probes = 0;
    apiServer.enforces = false;
    // Deleted at revision 200, restored at 230; the API server had not loaded it when the forged
    // RGD was stored at 235, and the controller saw that write only 3 × SETTLE_MS later.
    deletedAndRestored(ctx, "200", "230");
    const waits: (() => void)[] = [];
    proveDelegationPolicyLoaded(ctx, () => new Promise<void>((resolve) => waits.push(resolve)));
    await settled();
    assert.equal(apiServer.probes, 1);
    clock.now += 3 * SETTLE_MS;
    ctx.authorPolicies.seen(delegationWriteKey("ws"), "235", 0);
    const early = await verifyDelegation(ctx, rgd("235"), graph);
    assert.equal(early.condition?.reason, "DelegationUnverified");
    assert.match(early.condition.message ?? "", /does not enforce the restored kro-delegation admission policy yet/);
    assert.equal(apiServer.probes, 1, "judging joins the prover of this restore");
    // Loaded now: the revision then is 240, so the write at 235 may have passed without it.
    apiServer.enforces = true;
    apiServer.revision = "240";
    waits.shift()?.();
    await settled();
    assert.equal(apiServer.probes, 2);
    assert.deepEqual(requeued, ["ws"], "every delegating RGD is judged again once proven");
    const judged = await verifyDelegation(ctx, rgd("235"), graph);
    assert.equal(judged.condition?.reason, "DelegationUnverified");
    assert.match(judged.condition.message ?? "", /written while the kro-delegation admission policy was not in force/);
    assert.deepEqual(judged.policy.authorCheckExempt, []);
    // Written again later, under the enforced policy: it holds, and nothing is probed any more.
    clock.now += SETTLE_MS;
    ctx.authorPolicies.seen(delegationWriteKey("ws"), "300", 0);
    const rewritten = { ...rgd("300"), metadata: { ...rgd("300").metadata, generation: 2 } };
    assert.equal((await verifyDelegation(ctx, rewritten, graph)).condition?.status, "True");
    assert.equal(apiServer.probes, 2);
    assert.equal(waits.length, 0);
  });

  it("probes every 0.1 s while a load is usual, then less often: a write just after the load is not held back for seconds", () => {
    assert.equal(probeDelay(0), 100);
    assert.equal(probeDelay(99), 100, "10 s of frequent probes");
    assert.equal(probeDelay(100), 200);
    assert.equal(probeDelay(104), 3_200);
    assert.equal(probeDelay(105), 5_000);
    assert.equal(probeDelay(1_000), 5_000);
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
