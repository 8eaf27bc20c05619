/**
 * An instance is evaluated with the graph of the revision its rollout assigned it — only when its
 * RGD has spec.rollout; without one, the newest graph, whatever its status says (as in kro).
 * Whole passes against the in-memory fake API: the RGD's reconcile keeps every live revision's
 * graph, and each instance's Deployment is rendered from its own revision's template.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import type { KubeObject, ObjectRef } from "../../kube/index.js";
import { reconcileRgd } from "../rgd/index.js";
import { reconcileInstance } from "./index.js";
import { Actor, settle } from "../../../test/unit-support/fake-api/index.js";
import { serveRgd, startFakeController } from "../../../test/unit-support/controller/fake-controller.js";
import { instance, webappRgd } from "../../../test/unit-support/controller/rgds.js";
import { servedAtAssignedRevision, withRevisionRecord } from "./assigned-revision.js";
import { compileValue } from "../../../test/unit-support/runtime/fixtures.js";
import type { ServedGraph } from "../context/index.js";

const rgdRef: ObjectRef = { apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", name: "webapp" };
const instanceRef = (name: string): ObjectRef => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "WebApp",
  namespace: "default",
  name,
});

/** The webapp RGD, optionally with a rollout policy. */
function webapp(rollout: boolean): KubeObject {
  const rgd = webappRgd();
  return rollout ? { ...rgd, spec: { ...(rgd.spec as Record<string, unknown>), rollout: {} } } : rgd;
}

/** Revision 2: the Deployment's image gains a suffix. */
function suffixImage(rgd: KubeObject): void {
  const spec = rgd.spec as {
    resources: { id: string; template: { spec: { template: { spec: { containers: { image: string }[] } } } } }[];
  };
  const deploy = spec.resources.find((r) => r.id === "deploy");
  const container = deploy?.template.spec.template.spec.containers[0];
  if (container === undefined) throw new Error("no container");
  container.image = "${schema.spec.image}-v2";
}

async function imageOf(actor: Actor, name: string): Promise<string | undefined> {
  await settle();
  const deployment = actor.read({ apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name });
  const spec = deployment?.spec as { template: { spec: { containers: { image: string }[] } } } | undefined;
  return spec?.template.spec.containers[0]?.image;
}

async function twoRevisions(t: TestContext, rollout: boolean) {
  const fc = startFakeController();
  t.after(() => fc.stop());
  const actor = new Actor(fc.cluster);
  await serveRgd(fc, webapp(rollout));
  actor.edit(rgdRef, suffixImage);
  await reconcileRgd(fc.ctx, "webapp");
  const served = fc.ctx.served.get("webapp");
  assert.equal(served?.revision, 2);
  actor.create(instance("WebApp", "pinned-back"));
  actor.create(instance("WebApp", "fresh"));
  await settle();
  actor.editStatus(instanceRef("pinned-back"), { graphRevision: { assigned: 1, assignedAt: "2026-01-01T00:00:00Z" } });
  await settle();
  await reconcileInstance(fc.ctx, served, "default", "pinned-back");
  await reconcileInstance(fc.ctx, served, "default", "fresh");
  return { fc, actor, served };
}

describe("the revision an instance runs", () => {
  it("with spec.rollout: the graph of its assigned revision; unassigned, the newest", async (t) => {
    const { actor, served } = await twoRevisions(t, true);
    assert.deepEqual([...(served.revisions?.keys() ?? [])].sort(), [1, 2], "every live revision's graph is kept");
    assert.equal(await imageOf(actor, "pinned-back"), "nginx:1.27");
    assert.equal(await imageOf(actor, "fresh"), "nginx:1.27-v2");
    // Each records the revision it was evaluated with, and keeps what the rollout assigned.
    const record = (name: string) =>
      (actor.read(instanceRef(name))?.status as { graphRevision?: unknown }).graphRevision;
    const pinnedBack = record("pinned-back") as { healthyAt?: string };
    assert.deepEqual(pinnedBack, {
      assigned: 1,
      assignedAt: "2026-01-01T00:00:00Z",
      evaluated: 1,
      healthyAt: pinnedBack.healthyAt,
    });
    assert.match(pinnedBack.healthyAt ?? "", /^\d{4}-/, "Ready at revision 1: when, recorded");
    assert.equal((record("fresh") as { evaluated: number }).evaluated, 2);
  });

  it("without spec.rollout: the newest graph for every instance, whatever its status says (as in kro)", async (t) => {
    const { actor, served } = await twoRevisions(t, false);
    assert.equal(served.revisions, undefined, "no older graphs are kept");
    assert.equal(await imageOf(actor, "pinned-back"), "nginx:1.27-v2");
    assert.equal(await imageOf(actor, "fresh"), "nginx:1.27-v2");
    const record = (name: string) =>
      (actor.read(instanceRef(name))?.status as { graphRevision?: unknown }).graphRevision;
    assert.equal(record("fresh"), undefined, "nothing is added to an instance's status");
    assert.deepEqual(record("pinned-back"), { assigned: 1, assignedAt: "2026-01-01T00:00:00Z" }, "nor taken away");
  });

  it("waits, rather than run the newest, when the assigned revision's graph is not held", async (t) => {
    const { served } = await twoRevisions(t, true);
    const assignedGone = {
      ...instance("WebApp", "x"),
      status: { graphRevision: { assigned: 7 } },
    };
    assert.deepEqual(servedAtAssignedRevision(served, assignedGone), { kind: "missing", revision: 7 });
    assert.equal(
      (servedAtAssignedRevision(served, instance("WebApp", "y")) as { served: unknown }).served,
      served,
      "never ran: the served graph itself",
    );
  });

  it("not assigned yet, stays on the revision it last ran until the rollout adopts it", async (t) => {
    const { served } = await twoRevisions(t, true);
    const ranOne = { ...instance("WebApp", "z"), status: { graphRevision: { evaluated: 1 } } };
    const choice = servedAtAssignedRevision(served, ranOne);
    assert.equal(choice.kind === "served" ? choice.served.revision : undefined, 1);
    const ranGone = { ...instance("WebApp", "w"), status: { graphRevision: { evaluated: 7 } } };
    assert.deepEqual(servedAtAssignedRevision(served, ranGone), { kind: "missing", revision: 7 });
  });
});

describe("healthy at a revision", () => {
  it("is Ready and every healthyWhen holding; Ready alone is not healthy, and says which check fails", () => {
    const graph = compileValue({
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "h" },
      spec: {
        schema: { apiVersion: "v1alpha1", kind: "Healthy", status: { count: "${int(cm.data.count)}" } },
        rollout: { gate: { healthyWhen: ["${schema.status.count >= 3}"] } },
        resources: [
          {
            id: "cm",
            template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "h" }, data: { count: "2" } },
          },
        ],
      },
    });
    const served = { graph, revision: 4 } as unknown as ServedGraph;
    const live = { apiVersion: "kro.run/v1alpha1", kind: "Healthy", metadata: { name: "a", namespace: "default" } };
    const ready = [{ type: "Ready", status: "True", reason: "Ready" }];
    const record = (count: number) =>
      withRevisionRecord(served, live, { count, conditions: ready }, "2026-01-01T00:00:00Z").graphRevision as {
        healthyAt?: string;
        unhealthy?: string;
      };
    assert.equal(record(3).healthyAt, "2026-01-01T00:00:00Z");
    assert.equal(record(2).healthyAt, undefined);
    assert.match(record(2).unhealthy ?? "", /healthyWhen \$\{schema\.status\.count >= 3\} is false/);
    // The rollout's note on the instance's pin is the rollout's to clear: the instance's own status write keeps it.
    const noted = {
      ...live,
      status: { graphRevision: { assigned: 4, evaluated: 4, pinProblem: "revision 1 is gone" } },
    };
    const kept = withRevisionRecord(served, noted, { count: 3, conditions: ready }, "2026-01-01T00:00:00Z")
      .graphRevision as { pinProblem?: string };
    assert.equal(kept.pinProblem, "revision 1 is gone");
  });
});
