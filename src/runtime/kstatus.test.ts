import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { evaluateInstance } from "./evaluate.js";
import { compileFixture, instanceOf } from "../../test/unit-support/runtime/fixtures.js";
import { createMemoryLookup } from "./memory-lookup.js";
import { buildInstanceStatus } from "./status.js";
import type { KubeJson } from "./types.js";

const T0 = "2026-01-01T00:00:00Z";
type Cond = { type: string; status: string; reason: string; message: string };
const types = (status: KubeJson): string[] => (status.conditions as Cond[]).map((c) => `${c.type}=${c.status}`);
const byType = (status: KubeJson, type: string): Cond | undefined =>
  (status.conditions as Cond[]).find((c) => c.type === type);

describe("kstatus conventions on the instance status", () => {
  const webapp = compileFixture("webapp");
  const instance = instanceOf(
    webapp,
    { name: "shop", replicas: 1, regions: [], ingress: { enabled: false } },
    { generation: 7 },
  );

  it("stamps status.observedGeneration with the generation the status was computed for", () => {
    const status = buildInstanceStatus(webapp, instance, evaluateInstance(webapp, instance, createMemoryLookup()), {
      now: T0,
    });
    assert.equal(status.observedGeneration, 7);
  });

  it("Reconciling=True (just before Ready) while in progress, with Ready's reason and message", () => {
    const status = buildInstanceStatus(webapp, instance, evaluateInstance(webapp, instance, createMemoryLookup()), {
      now: T0,
    });
    assert.equal(status.state, "IN_PROGRESS");
    assert.deepEqual(types(status).slice(-2), ["Reconciling=True", "Ready=Unknown"]);
    assert.deepEqual(byType(status, "Reconciling")?.message, byType(status, "Ready")?.message);
    assert.equal(byType(status, "Stalled"), undefined);
  });

  it("Stalled=True on an error and while suspended; neither once Ready", () => {
    const evaluation = evaluateInstance(webapp, instance, createMemoryLookup());
    const failed = buildInstanceStatus(webapp, instance, evaluation, {
      now: T0,
      applyErrors: { deploy: "403 Forbidden" },
    });
    assert.equal(failed.state, "ERROR");
    assert.match(byType(failed, "Stalled")?.message ?? "", /deploy: 403 Forbidden/);
    assert.equal(byType(failed, "Reconciling"), undefined);
    const suspended = buildInstanceStatus(webapp, instance, evaluation, { now: T0, suspended: true });
    assert.equal(byType(suspended, "Stalled")?.reason, "ReconciliationSuspended");
    const lookup = createMemoryLookup();
    let e = evaluateInstance(webapp, instance, lookup);
    for (let i = 0; i < 5; i++) {
      lookup.put(...e.apply.map((o) => (o.kind === "Deployment" ? { ...o, status: { availableReplicas: 1 } } : o)));
      e = evaluateInstance(webapp, instance, lookup);
    }
    const ready = buildInstanceStatus(webapp, instance, e, { now: T0 });
    assert.equal(ready.state, "ACTIVE");
    assert.deepEqual(types(ready), ["InstanceManaged=True", "GraphResolved=True", "ResourcesReady=True", "Ready=True"]);
  });
});
