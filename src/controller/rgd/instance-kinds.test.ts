import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../kube/index.js";
import { needsReconcile, rolloutJudgementChanged } from "./instance-kinds.js";

const at = (status: Record<string, unknown>, generation = 1): KubeObject => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "WebApp",
  metadata: { name: "a", namespace: "default", generation, finalizers: ["kro.run/finalizer"] },
  status,
});

describe("which instance updates need a pass", () => {
  it("a rollout's move (status.graphRevision.assigned) does, whatever queued it before the cache held it", () => {
    assert.equal(
      needsReconcile(at({ graphRevision: { evaluated: 1 } }), at({ graphRevision: { evaluated: 1, assigned: 2 } })),
      true,
    );
    assert.equal(
      needsReconcile(at({ graphRevision: { assigned: 2, evaluated: 2 } }), at({ graphRevision: { assigned: 1 } })),
      true,
      "a rollback too",
    );
  });
  it("the instance's own status write does not", () => {
    assert.equal(
      needsReconcile(
        at({ graphRevision: { assigned: 2, evaluated: 1 } }),
        at({ graphRevision: { assigned: 2, evaluated: 2 }, state: "ACTIVE" }),
      ),
      false,
    );
  });
});

describe("which instance updates wake the rollout", () => {
  it("an instance turning healthy, or failing, at its revision", () => {
    const moved = at({ graphRevision: { assigned: 2, evaluated: 1, healthyAt: "t0" } });
    const ranIt = at({ graphRevision: { assigned: 2, evaluated: 2, unhealthy: "Ready=False" } });
    const healthy = at({ graphRevision: { assigned: 2, evaluated: 2, healthyAt: "t1" } });
    assert.equal(rolloutJudgementChanged(moved, ranIt), true);
    assert.equal(rolloutJudgementChanged(ranIt, healthy), true);
    assert.equal(rolloutJudgementChanged(healthy, at({ ...(healthy.status as object), state: "ACTIVE" })), false);
    assert.equal(
      rolloutJudgementChanged(at({ state: "IN_PROGRESS" }), at({ state: "ACTIVE" })),
      false,
      "no rollout: never",
    );
  });
  it("a pin added, changed or removed, under a rollout only", () => {
    const pinned = (pin: string | undefined, status: Record<string, unknown>): KubeObject => {
      const o = at(status);
      return pin === undefined
        ? o
        : { ...o, metadata: { ...o.metadata, annotations: { "kro.run/pin-graph-revision": pin } } };
    };
    const record = { graphRevision: { assigned: 2, evaluated: 2, healthyAt: "t0" } };
    assert.equal(rolloutJudgementChanged(pinned(undefined, record), pinned("1", record)), true);
    assert.equal(rolloutJudgementChanged(pinned("1", record), pinned("2", record)), true);
    assert.equal(rolloutJudgementChanged(pinned("1", record), pinned(undefined, record)), true);
    assert.equal(rolloutJudgementChanged(pinned("1", record), pinned("1", record)), false);
    assert.equal(rolloutJudgementChanged(pinned(undefined, {}), pinned("1", {})), false, "no rollout: never");
  });
});
