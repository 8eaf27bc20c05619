/**
 * The rollout step of the RGD reconcile, whole passes against the in-memory fake API: a new
 * revision reaches the canary wave first, one instance at a time, each instance rendering its own
 * revision meanwhile, and the RGD's status and `Propagated` condition say how far it is; an RGD
 * without a policy gets none of it.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import type { KubeObject, ObjectRef } from "../../kube/index.js";
import { reconcileInstance } from "../instance/index.js";
import { reconcileRgd } from "./reconcile.js";
import { ROLLOUT_POLL_MS } from "./rollout-step.js";
import { Actor, settle } from "../../../test/unit-support/fake-api/index.js";
import { serveRgd, startFakeController } from "../../../test/unit-support/controller/fake-controller.js";
import { instance, webappRgd } from "../../../test/unit-support/controller/rgds.js";

const rgdRef: ObjectRef = { apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", name: "webapp" };
const NAMES = ["canary", "b", "c"];

type Condition = { type: string; status: string; reason?: string; message?: string };
const propagated = (rgd: KubeObject | undefined): Condition | undefined =>
  ((rgd?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === "Propagated");

function suffixImage(rgd: KubeObject): void {
  const spec = rgd.spec as {
    resources: { id: string; template: { spec: { template: { spec: { containers: { image: string }[] } } } } }[];
  };
  const container = spec.resources.find((r) => r.id === "deploy")?.template.spec.template.spec.containers[0];
  if (container === undefined) throw new Error("no container");
  container.image = "${schema.spec.image}-v2";
}

async function fleet(
  t: TestContext,
  rollout: Record<string, unknown> | undefined,
  options: Parameters<typeof startFakeController>[0] = {},
) {
  const fc = startFakeController(options);
  t.after(() => fc.stop());
  const actor = new Actor(fc.cluster);
  const base = webappRgd();
  await serveRgd(
    fc,
    rollout === undefined ? base : { ...base, spec: { ...(base.spec as Record<string, unknown>), rollout } },
  );
  for (const name of NAMES) {
    const object = instance("WebApp", name);
    actor.create({
      ...object,
      metadata: { ...object.metadata, labels: name === "canary" ? { canary: "true" } : {} },
    });
  }
  await settle();
  const passAll = async () => {
    const served = fc.ctx.served.get("webapp");
    assert.ok(served !== undefined);
    for (const name of NAMES) await reconcileInstance(fc.ctx, served, "default", name);
    await settle();
  };
  const images = () =>
    NAMES.map((name) => {
      const deployment = actor.read({ apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name });
      return (deployment?.spec as { template: { spec: { containers: { image: string }[] } } } | undefined)?.template
        .spec.containers[0]?.image;
    });
  return { fc, actor, passAll, images };
}

describe("the rollout step", () => {
  it("moves a new revision wave by wave, within maxUpdating, and reports it on the RGD", async (t) => {
    const { fc, actor, passAll, images } = await fleet(t, {
      waves: [{ name: "canary", selector: { matchLabels: { canary: "true" } } }],
      maxUpdating: 1,
    });
    await passAll();
    await reconcileRgd(fc.ctx, "webapp");
    await settle();
    assert.equal(propagated(actor.read(rgdRef))?.reason, "AllPropagated");

    actor.edit(rgdRef, suffixImage);
    const first = await reconcileRgd(fc.ctx, "webapp");
    await settle();
    assert.ok(first.requeueAfterMs !== undefined && first.requeueAfterMs <= ROLLOUT_POLL_MS, "looks again soon");
    const rgd = actor.read(rgdRef);
    assert.equal(propagated(rgd)?.reason, "PropagationInProgress");
    assert.match(propagated(rgd)?.message ?? "", /^wave 1\/2 \(canary\)/);
    assert.deepEqual((rgd?.status as { rollout?: { target?: number } }).rollout?.target, 2);
    await passAll();
    assert.deepEqual(images(), ["nginx:1.27-v2", "nginx:1.27", "nginx:1.27"], "only the canary moved");

    for (let round = 0; round < 4; round++) {
      await reconcileRgd(fc.ctx, "webapp");
      await settle();
      await passAll();
      const moved = images().filter((i) => i === "nginx:1.27-v2").length;
      assert.ok(moved <= Math.min(NAMES.length, round + 2), `one more at a time: ${images().join(", ")}`);
    }
    assert.deepEqual(images(), ["nginx:1.27-v2", "nginx:1.27-v2", "nginx:1.27-v2"]);
    await reconcileRgd(fc.ctx, "webapp");
    await settle();
    assert.equal(propagated(actor.read(rgdRef))?.reason, "AllPropagated");
  });

  it("moves nothing while the RGD carries kro.run/rollout-paused, and goes on when it is removed", async (t) => {
    const { fc, actor, passAll, images } = await fleet(t, { maxUpdating: 1 });
    await passAll();
    await reconcileRgd(fc.ctx, "webapp");
    actor.edit(rgdRef, (rgd) => {
      suffixImage(rgd);
      (rgd.metadata as { annotations?: Record<string, string> }).annotations = { "kro.run/rollout-paused": "true" };
    });
    await reconcileRgd(fc.ctx, "webapp");
    await settle();
    await passAll();
    assert.equal(propagated(actor.read(rgdRef))?.reason, "Paused");
    assert.deepEqual(images(), ["nginx:1.27", "nginx:1.27", "nginx:1.27"]);
    actor.edit(rgdRef, (rgd) => {
      (rgd.metadata as { annotations?: Record<string, string> }).annotations = {};
    });
    await reconcileRgd(fc.ctx, "webapp");
    await settle();
    await passAll();
    assert.equal(images().filter((i) => i === "nginx:1.27-v2").length, 1);
  });

  it("keeps the revisions instances still run beyond --rgd-max-graph-revisions", async (t) => {
    const { fc, actor, passAll } = await fleet(
      t,
      { waves: [{ name: "canary", selector: { matchLabels: { canary: "true" } } }], maxUpdating: 1 },
      { controller: { maxGraphRevisions: 1 } },
    );
    await passAll();
    await reconcileRgd(fc.ctx, "webapp");
    actor.edit(rgdRef, suffixImage);
    await reconcileRgd(fc.ctx, "webapp");
    await settle();
    const revisions = () =>
      actor
        .list("internal.kro.run/v1alpha1", "GraphRevision")
        .map((r) => (r.spec as { revision: number }).revision)
        .sort();
    assert.deepEqual(revisions(), [1, 2], "revision 1 is still run by two instances");
    for (let round = 0; round < 5; round++) {
      await passAll();
      await reconcileRgd(fc.ctx, "webapp");
      await settle();
    }
    assert.equal(propagated(actor.read(rgdRef))?.reason, "AllPropagated");
    assert.deepEqual(revisions(), [2], "and goes once none does");
  });

  it("resumes at the right wave in a new controller over the same cluster", async (t) => {
    const { fc, actor, passAll, images } = await fleet(t, {
      waves: [{ name: "canary", selector: { matchLabels: { canary: "true" } } }],
      maxUpdating: 1,
    });
    await passAll();
    await reconcileRgd(fc.ctx, "webapp");
    actor.edit(rgdRef, suffixImage);
    await reconcileRgd(fc.ctx, "webapp");
    await settle();
    await passAll();
    assert.deepEqual(images(), ["nginx:1.27-v2", "nginx:1.27", "nginx:1.27"]);
    await fc.stop();

    const next = startFakeController({ cluster: fc.cluster });
    t.after(() => next.stop());
    await reconcileRgd(next.ctx, "webapp");
    await settle();
    const served = next.ctx.served.get("webapp");
    assert.ok(served !== undefined);
    for (const name of NAMES) await reconcileInstance(next.ctx, served, "default", name);
    await settle();
    const moved = images();
    assert.equal(moved[0], "nginx:1.27-v2");
    assert.equal(
      moved.filter((i) => i === "nginx:1.27-v2").length,
      2,
      `the second wave, one at a time: ${moved.join(", ")}`,
    );
    assert.match(propagated(actor.read(rgdRef))?.message ?? "", /^wave 2\/2/);
  });

  it("without a policy: every instance takes the new revision, and the RGD gets no rollout status", async (t) => {
    const { fc, actor, passAll, images } = await fleet(t, undefined);
    await passAll();
    actor.edit(rgdRef, suffixImage);
    assert.deepEqual(await reconcileRgd(fc.ctx, "webapp"), {});
    await settle();
    await passAll();
    assert.deepEqual(images(), ["nginx:1.27-v2", "nginx:1.27-v2", "nginx:1.27-v2"]);
    const rgd = actor.read(rgdRef);
    assert.equal(propagated(rgd), undefined);
    assert.equal((rgd?.status as { rollout?: unknown }).rollout, undefined);
    for (const name of NAMES) {
      const status = actor.read({ apiVersion: "kro.run/v1alpha1", kind: "WebApp", namespace: "default", name })
        ?.status as { graphRevision?: unknown };
      assert.equal(status.graphRevision, undefined);
    }
  });
});
