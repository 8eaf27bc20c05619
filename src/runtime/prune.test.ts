import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateInstance } from "./evaluate.js";
import { compileFixture, instanceOf } from "../../test/unit-support/runtime/fixtures.js";
import { createMemoryLookup } from "./memory-lookup.js";
import { deletionPlan, prunePlan } from "./prune.js";
import type { InventoryEntry, KubeJson } from "./types.js";

const webapp = compileFixture("webapp");
const entry = (nodeId: string, kind: string, name: string, apiVersion = "v1"): InventoryEntry => ({
  apiVersion,
  kind,
  name,
  namespace: "team",
  uid: `uid-${name}`,
  nodeId,
});
const inventory: InventoryEntry[] = [
  entry("deploy", "Deployment", "shop", "apps/v1"),
  entry("svc", "Service", "shop"),
  entry("ing", "Ingress", "shop", "networking.k8s.io/v1"),
  entry("cms", "ConfigMap", "shop-eu"),
  entry("cms", "ConfigMap", "shop-us"),
  entry("oldNode", "Secret", "gone"),
];

function ready(spec: KubeJson) {
  const instance = instanceOf(webapp, spec);
  const lookup = createMemoryLookup();
  let evaluation = evaluateInstance(webapp, instance, lookup);
  for (let i = 0; i < 4; i++) {
    lookup.put(
      ...evaluation.apply.map((o) => (o.kind === "Deployment" ? { ...o, status: { availableReplicas: 1 } } : o)),
    );
    evaluation = evaluateInstance(webapp, instance, lookup);
  }
  return evaluation;
}

describe("prunePlan", () => {
  it("prunes what is no longer desired (excluded, forEach shrank, removed node) in deletion waves, unknown nodes first", () => {
    const evaluation = ready({ name: "shop", replicas: 1, regions: ["eu"], ingress: { enabled: false } });
    assert.equal(evaluation.pending, false);
    const plan = prunePlan(webapp, inventory, evaluation);
    assert.deepEqual(
      plan.map((wave) => wave.map((e) => e.name)),
      [["gone"], ["shop", "shop-us"]],
    );
    assert.deepEqual(
      plan[1]?.map((e) => e.kind),
      ["Ingress", "ConfigMap"],
    );
  });

  it("a renamed object is pruned; versions of one group are the same object", () => {
    const evaluation = ready({ name: "shop", replicas: 1, regions: ["eu", "us"], ingress: { enabled: true } });
    const renamed = [{ ...entry("deploy", "Deployment", "shop", "apps/v1beta1") }, entry("svc", "Service", "old-shop")];
    assert.deepEqual(
      prunePlan(webapp, renamed, evaluation).map((w) => w.map((e) => e.name)),
      [["old-shop"]],
    );
  });

  it("never prunes on partial knowledge: a pending pass prunes nothing", () => {
    const evaluation = evaluateInstance(
      webapp,
      instanceOf(webapp, { name: "shop", replicas: 1, regions: [], ingress: { enabled: false } }),
      createMemoryLookup(),
    );
    assert.equal(evaluation.pending, true);
    assert.deepEqual(prunePlan(webapp, inventory, evaluation), []);
  });

  it("never prunes after an error", () => {
    const evaluation = ready({ name: "shop", replicas: 1, regions: ["eu", "eu"], ingress: { enabled: false } });
    assert.ok(evaluation.error);
    assert.deepEqual(prunePlan(webapp, inventory, evaluation), []);
  });
});

describe("deletionPlan", () => {
  it("every entry, highest wave first (dependents before dependencies), unknown node ids first", () => {
    assert.deepEqual(
      deletionPlan(webapp, inventory).map((w) => w.map((e) => `${e.nodeId}/${e.name}`)),
      [["oldNode/gone"], ["ing/shop", "cms/shop-eu", "cms/shop-us"], ["svc/shop"], ["deploy/shop"]],
    );
  });

  it("an empty inventory has no waves", () => {
    assert.deepEqual(deletionPlan(webapp, []), []);
  });
});
