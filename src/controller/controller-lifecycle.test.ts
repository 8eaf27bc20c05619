import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  healthMatters,
  initialLifecycle,
  STOP_ORDER,
  stepLifecycle,
  type LifecycleEvent,
  type LifecycleState,
} from "./controller-lifecycle.js";

function run(events: LifecycleEvent[]): { state: LifecycleState; actions: string[] } {
  let state = initialLifecycle;
  const actions: string[] = [];
  for (const event of events) {
    const step = stepLifecycle(state, event);
    state = step.state;
    actions.push(...step.actions.map((a) => a.type));
  }
  return { state, actions };
}

describe("controller lifecycle", () => {
  it("leadership gained while starting is answered once, after the RGD watch has synced", () => {
    const before = run([{ type: "became-leader" }]);
    assert.deepEqual(before.actions, [], "nothing to go over yet");
    assert.deepEqual(run([{ type: "became-leader" }, { type: "synced" }]).actions, ["resync-rgds"]);
    assert.deepEqual(run([{ type: "synced" }]).actions, [], "no leadership, no extra resync");
  });

  it("a running leader, or a new CA, goes over every RGD again", () => {
    assert.deepEqual(run([{ type: "synced" }, { type: "became-leader" }, { type: "ca-rotated" }]).actions, [
      "resync-rgds",
      "resync-rgds",
    ]);
    assert.deepEqual(
      run([{ type: "ca-rotated" }]).actions,
      [],
      "before the watch has synced the first list queues them all",
    );
  });

  it("a start that cannot sync is reported once and resyncs nothing", () => {
    const failed = run([
      { type: "became-leader" },
      { type: "sync-failed", error: "no RGD CRD" },
      { type: "synced" },
      { type: "became-leader" },
    ]);
    assert.equal(failed.state.phase, "failed");
    assert.deepEqual(failed.actions, ["report-start-failure"]);
  });

  it("stops in order — intake, work in flight, what the work used, the webhook last — from any phase, once", () => {
    for (const before of [[], [{ type: "synced" }], [{ type: "sync-failed", error: "x" }]] as LifecycleEvent[][]) {
      const stopped = run([...before, { type: "stop" }, { type: "stop" }, { type: "synced" }]);
      assert.deepEqual(
        stopped.actions.filter((a) => a !== "report-start-failure"),
        [...STOP_ORDER],
      );
      assert.equal(stopped.state.phase, "stopped");
      assert.equal(healthMatters(stopped.state), false);
    }
    assert.equal(STOP_ORDER.indexOf("await-workers") > STOP_ORDER.indexOf("shut-queues"), true);
    assert.equal(STOP_ORDER.at(-1), "close-webhook");
  });
});
