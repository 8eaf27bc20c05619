/**
 * reconcileRgd, whole passes against the in-memory fake API (test/unit-support/fake-api/): the
 * generated CRD, the GraphRevision, the RGD's status, and which graph its instances are served by.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { FINALIZER } from "../../api/index.js";
import type { KubeObject, ObjectRef } from "../../kube/index.js";
import { reconcileInstance } from "../instance/index.js";
import { rescopeInstances } from "./instance-kinds.js";
import { reconcileRgd } from "./reconcile.js";
import { Actor, settle } from "../../../test/unit-support/fake-api/index.js";
import { serveRgd, startFakeController } from "../../../test/unit-support/controller/fake-controller.js";
import { instance, webappRgd } from "../../../test/unit-support/controller/rgds.js";

const rgdRef: ObjectRef = { apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", name: "webapp" };
const crdRef: ObjectRef = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  name: "webapps.kro.run",
};
type Condition = { type: string; status: string; reason?: string; message?: string };
const condition = (object: KubeObject | undefined, type: string): Condition | undefined =>
  ((object?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === type);

/** The webapp RGD's spec with one template reading a field its schema does not have. */
function breakSpec(rgd: KubeObject): void {
  const spec = rgd.spec as { resources: { id: string; template: { spec: { replicas: string } } }[] };
  const deploy = spec.resources.find((r) => r.id === "deploy");
  if (deploy === undefined) throw new Error("no deploy node");
  deploy.template.spec.replicas = "${schema.spec.noSuchField}";
}

function fixture(t: TestContext) {
  const fc = startFakeController();
  t.after(() => fc.stop());
  return { fc, actor: new Actor(fc.cluster) };
}

describe("reconcileRgd", () => {
  it("a valid RGD: our finalizer, its kind installed and served, a GraphRevision, status Active", async (t) => {
    const { fc, actor } = fixture(t);
    actor.create(webappRgd());
    assert.deepEqual(await reconcileRgd(fc.ctx, "webapp"), {});
    const live = actor.read(rgdRef);
    assert.deepEqual(live?.metadata?.finalizers, [FINALIZER]);
    assert.equal((live.status as { state?: string }).state, "Active");
    assert.equal(condition(live, "ResourceGraphAccepted")?.status, "True");
    assert.ok(actor.read(crdRef), "the generated CRD is installed");
    assert.equal(actor.list("internal.kro.run/v1alpha1", "GraphRevision").length, 1);
    const served = fc.ctx.served.get("webapp");
    assert.equal(served?.instance.kind, "WebApp");
    assert.equal(served.generation, 1);
    assert.ok(fc.ctx.instanceLeases.get("webapp")?.informer.hasSynced, "its instances are watched");
    // Converged: a second pass writes nothing.
    const writes = fc.cluster.writes().length;
    assert.deepEqual(await reconcileRgd(fc.ctx, "webapp"), {});
    assert.deepEqual(fc.cluster.writes().slice(writes), []);
  });

  it("an invalid new spec keeps the last good graph serving, and the status says which", async (t) => {
    const { fc, actor } = fixture(t);
    const first = await serveRgd(fc, webappRgd());
    actor.edit(rgdRef, breakSpec);
    assert.equal(actor.read(rgdRef)?.metadata?.generation, 2);
    await reconcileRgd(fc.ctx, "webapp");
    const live = actor.read(rgdRef);
    assert.equal(condition(live, "ResourceGraphAccepted")?.status, "False");
    assert.match(condition(live, "ResourceGraphAccepted")?.message ?? "", /noSuchField/);
    const ready = condition(live, "ControllerReady");
    assert.equal(ready?.status, "True");
    assert.match(ready.message ?? "", /last valid graph \(GraphRevision 1, generation 1\)/);
    assert.equal(fc.ctx.served.get("webapp"), first, "the same graph still serves");
    assert.equal(actor.list("internal.kro.run/v1alpha1", "GraphRevision").length, 1, "no revision for an invalid spec");
    // And instances are still reconciled by it.
    actor.create(instance("WebApp", "demo"));
    await settle();
    assert.deepEqual(await reconcileInstance(fc.ctx, first, "default", "demo"), {});
    assert.ok(actor.read({ apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "demo" }));
  });

  it("after a restart, an invalid spec is served by its newest GraphRevision that compiles", async (t) => {
    const { fc, actor } = fixture(t);
    await serveRgd(fc, webappRgd());
    actor.edit(rgdRef, breakSpec);
    // A new controller on the same cluster: nothing in memory, only what the cluster keeps.
    const restarted = startFakeController({ cluster: fc.cluster });
    t.after(() => restarted.stop());
    await reconcileRgd(restarted.ctx, "webapp");
    const served = restarted.ctx.served.get("webapp");
    assert.ok(served, "served from the GraphRevision");
    assert.equal(served.revision, 1);
    assert.equal(served.generation, 1);
    assert.equal(condition(actor.read(rgdRef), "ControllerReady")?.status, "True");
    assert.equal(condition(actor.read(rgdRef), "ResourceGraphAccepted")?.status, "False");
  });

  it("a re-selection of the instance cache queues what only its new list shows (an event lost with the old cache)", async (t) => {
    const { fc, actor } = fixture(t);
    await serveRgd(fc, webappRgd());
    const ref = { apiVersion: "kro.run/v1alpha1", kind: "WebApp", namespace: "default", name: "demo" };
    actor.create(instance("WebApp", "demo"));
    await settle();
    await fc.queued("instance");
    // The change is made while the old cache's watch lags: its event never reaches that cache.
    fc.cluster.holdWatches();
    actor.edit(ref, (o) => {
      o.spec = { ...(o.spec as object), image: "nginx:2" };
    });
    await rescopeInstances(fc.ctx);
    fc.cluster.releaseWatches();
    await settle();
    assert.deepEqual(await fc.queued("instance"), [JSON.stringify(["webapp", "default", "demo"])]);
  });
});
