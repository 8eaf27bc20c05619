import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  EXPIRY_MARGIN_MS,
  initialElection,
  RENEW_DEADLINE_PASSED,
  stepElection,
  type ElectionEvent,
  type ElectionState,
} from "./election-machine.js";

const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
const at = (now: number, jitter = 0) => ({ now, jitter });
const free = { heldByOther: false, msUntilExpiry: 0 };
const step = (state: ElectionState, event: ElectionEvent, now: number, jitter = 0) =>
  stepElection(state, event, at(now, jitter), timing);
const leaderUntil = (fenceDeadline: number): ElectionState => ({ phase: "leader", fenceDeadline });

describe("leader election state machine", () => {
  it("a candidate's tick asks for one attempt bounded by the renew deadline", () => {
    assert.deepEqual(step(initialElection, { type: "tick" }, 0), {
      state: initialElection,
      actions: [{ type: "attempt", timeoutMs: 10_000 }],
    });
  });

  it("a written Lease makes a leader whose fence is held until sent + renewDeadline, not until the answer + renewDeadline", () => {
    const next = step(initialElection, { type: "attempted", outcome: { kind: "written", sentAt: 500 } }, 4_000);
    assert.deepEqual(next.state, { phase: "leader", fenceDeadline: 10_500 });
    assert.deepEqual(next.actions, [
      { type: "hold", until: 10_500 },
      { type: "acquired" },
      { type: "wait", ms: 2_000 },
    ]);
  });

  it("a refused candidate waits a jittered retry period, or until the Lease it saw expires, plus a margin, if sooner", () => {
    const refused = (msUntilExpiry: number) => ({
      type: "attempted" as const,
      outcome: { kind: "refused" as const, holder: "other", lease: { heldByOther: true, msUntilExpiry } },
    });
    assert.deepEqual(step(initialElection, refused(700), 0).actions, [
      { type: "refused", holder: "other" },
      { type: "wait", ms: 700 + EXPIRY_MARGIN_MS },
    ]);
    assert.deepEqual(step(initialElection, refused(60_000), 0, 0.5).actions, [
      { type: "refused", holder: "other" },
      { type: "wait", ms: 2_000 * 1.1 },
    ]);
    const failed = step(
      initialElection,
      { type: "attempted", outcome: { kind: "failed", error: "503", lease: free } },
      0,
      0.99,
    );
    assert.equal(failed.state, initialElection);
    assert.deepEqual(failed.actions[0], { type: "failed", error: "503" });
    assert.ok(Math.abs((failed.actions[1] as { ms: number }).ms - 2_396) < 1e-6, "retry × (1 + 0.99 × 0.2)");
  });

  it("a leader's renewal is bounded by what is left of its deadline, and extends the fence from when it was sent", () => {
    assert.deepEqual(step(leaderUntil(10_000), { type: "tick" }, 7_500).actions, [
      { type: "attempt", timeoutMs: 2_500 },
    ]);
    const renewed = step(
      leaderUntil(10_000),
      { type: "attempted", outcome: { kind: "written", sentAt: 7_500 } },
      9_900,
    );
    assert.deepEqual(renewed.state, leaderUntil(17_500));
    assert.deepEqual(renewed.actions, [
      { type: "hold", until: 17_500 },
      { type: "wait", ms: 2_000 },
    ]);
  });

  it("a leader whose renewals fail keeps trying until the deadline, then loses", () => {
    const failed = step(
      leaderUntil(10_000),
      { type: "attempted", outcome: { kind: "failed", error: "timeout", lease: free } },
      8_000,
    );
    assert.equal(failed.state.phase, "leader");
    assert.deepEqual(failed.actions, [
      { type: "failed", error: "timeout" },
      { type: "wait", ms: 2_000 },
    ]);
    assert.deepEqual(step(leaderUntil(10_000), { type: "tick" }, 10_000), {
      state: { phase: "stopped", fenceDeadline: 10_000 },
      actions: [{ type: "lost", why: RENEW_DEADLINE_PASSED }],
    });
  });

  it("the deadline timer ends leadership even while a renewal hangs, and only once it has really passed", () => {
    assert.deepEqual(
      step(leaderUntil(10_000), { type: "deadline" }, 9_999).actions,
      [],
      "a timer for an older deadline changes nothing",
    );
    const lost = step(leaderUntil(10_000), { type: "deadline" }, 10_000);
    assert.equal(lost.state.phase, "stopped");
    assert.deepEqual(lost.actions, [{ type: "lost", why: RENEW_DEADLINE_PASSED }]);
    assert.deepEqual(
      step(lost.state, { type: "attempted", outcome: { kind: "written", sentAt: 9_000 } }, 10_100).actions,
      [],
      "a late answer revives nothing",
    );
  });

  it("a leader that finds the Lease held by another loses at once", () => {
    const lost = step(
      leaderUntil(10_000),
      {
        type: "attempted",
        outcome: { kind: "refused", holder: "b", lease: { heldByOther: true, msUntilExpiry: 15_000 } },
      },
      5_000,
    );
    assert.deepEqual(lost.actions, [{ type: "lost", why: "the lease was taken by b" }]);
    const anonymous = step(
      leaderUntil(10_000),
      { type: "attempted", outcome: { kind: "refused", holder: "", lease: free } },
      5_000,
    );
    assert.deepEqual(anonymous.actions, [{ type: "lost", why: "the lease was taken by another candidate" }]);
  });

  it("stop ends every phase and nothing happens after it", () => {
    for (const state of [initialElection, leaderUntil(10_000)]) {
      const stopped = step(state, { type: "stop" }, 0);
      assert.equal(stopped.state.phase, "stopped");
      assert.deepEqual(stopped.actions, []);
      assert.deepEqual(step(stopped.state, { type: "tick" }, 1).actions, []);
    }
  });
});
