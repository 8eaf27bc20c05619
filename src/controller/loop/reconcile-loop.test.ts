import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock, settle } from "../../../test/support/manual-clock.js";
import { TerminalError, TransientError, startReconcileLoop, type ReconcileOutcome } from "./reconcile-loop.js";
import { WorkQueue } from "./work-queue.js";

/** Lets the workers run until nothing more happens without time moving. */
async function idle(): Promise<void> {
  for (let i = 0; i < 5; i++) await settle();
}

describe("startReconcileLoop", () => {
  it("retries a failing key with backoff, then forgets it on success", async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ baseDelayMs: 100, clock });
    let attempts = 0;
    const outcomes: ReconcileOutcome[] = [];
    const loop = startReconcileLoop({
      queue,
      workers: 2,
      clock,
      reconcile: () => {
        attempts += 1;
        if (attempts < 3) return Promise.reject(new Error("transient"));
        return Promise.resolve({});
      },
      onOutcome: (_key, outcome) => outcomes.push(outcome),
    });
    queue.add("ns/a");
    await idle();
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ["error"],
    );
    assert.deepEqual(
      outcomes.map((o) => (o.kind === "error" ? o.retryInMs : 0)),
      [100],
    );
    await clock.advance(99);
    assert.equal(attempts, 1, "not retried before its backoff");
    await clock.advance(1);
    assert.equal(attempts, 2);
    await clock.advance(199);
    assert.equal(attempts, 2, "the second failure waits twice as long");
    await clock.advance(1);
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ["error", "error", "success"],
    );
    assert.equal(queue.failureCount("ns/a"), 0);
    queue.shutDown();
    await loop.stopped;
  });

  it("marks the server's failures (by the predicate, or a TransientError) for a prompt retry when it is back", async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ baseDelayMs: 60_000, clock });
    const seen: string[] = [];
    const loop = startReconcileLoop({
      queue,
      workers: 1,
      clock,
      isTransient: (e) => e instanceof Error && e.message === "503",
      reconcile: (key) => {
        seen.push(key);
        return Promise.reject(
          key === "by-class"
            ? new TransientError("writes failed: 503")
            : new Error(key === "by-predicate" ? "503" : "403"),
        );
      },
    });
    for (const key of ["by-predicate", "by-class", "forbidden"]) queue.add(key);
    await idle();
    assert.equal(seen.length, 3);
    assert.equal(queue.inFlight, 0);
    assert.equal(queue.retryTransientNow(), 2, "the 403 keeps its backoff");
    await idle();
    assert.deepEqual(seen.slice(3).sort(), ["by-class", "by-predicate"]);
    queue.shutDown();
    await loop.stopped;
  });

  it("does not retry a terminal error", async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ baseDelayMs: 1, clock });
    let attempts = 0;
    const outcomes: ReconcileOutcome["kind"][] = [];
    const loop = startReconcileLoop({
      queue,
      workers: 1,
      clock,
      reconcile: () => {
        attempts += 1;
        return Promise.reject(new TerminalError("invalid"));
      },
      onOutcome: (_key, outcome) => outcomes.push(outcome.kind),
    });
    queue.add("k");
    await idle();
    await clock.advance(60_000);
    assert.equal(attempts, 1);
    assert.deepEqual(outcomes, ["terminal"]);
    assert.equal(clock.timers, 0, "no retry scheduled");
    queue.shutDown();
    await loop.stopped;
  });

  it("keeps other keys flowing while one key is slow", async () => {
    const queue = new WorkQueue();
    const done: string[] = [];
    let releaseSlow: () => void = () => undefined;
    const loop = startReconcileLoop({
      queue,
      workers: 2,
      reconcile: async (key) => {
        if (key === "slow")
          await new Promise<void>((resolve) => {
            releaseSlow = resolve;
          });
        done.push(key);
        return {};
      },
    });
    queue.add("slow");
    for (const k of ["a", "b", "c"]) queue.add(k);
    await idle();
    assert.deepEqual(done, ["a", "b", "c"]);
    releaseSlow();
    await idle();
    assert.deepEqual(done, ["a", "b", "c", "slow"]);
    queue.shutDown();
    await loop.stopped;
  });

  it("requeues after the requested delay, not before", async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    let calls = 0;
    const outcomes: ReconcileOutcome[] = [];
    const loop = startReconcileLoop({
      queue,
      workers: 1,
      clock,
      reconcile: () => {
        calls += 1;
        return Promise.resolve(calls === 1 ? { requeueAfterMs: 10_000 } : {});
      },
      onOutcome: (_key, outcome) => outcomes.push(outcome),
    });
    queue.add("k");
    await idle();
    assert.equal(calls, 1);
    assert.deepEqual(outcomes[0], { kind: "success", requeueAfterMs: 10_000 });
    await clock.advance(9_999);
    assert.equal(calls, 1, "not before the delay");
    await clock.advance(1);
    assert.equal(calls, 2, "at the delay");
    await clock.advance(60_000);
    assert.equal(calls, 2, "a plain success is not requeued");
    queue.shutDown();
    await loop.stopped;
  });

  it("reports each reconcile's duration on the injected clock", async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    const durations: number[] = [];
    const loop = startReconcileLoop({
      queue,
      workers: 1,
      clock,
      reconcile: async () => {
        await clock.sleep(250);
        return {};
      },
      onOutcome: (_key, _outcome, ms) => durations.push(ms),
    });
    queue.add("k");
    await idle();
    await clock.advance(250);
    assert.deepEqual(durations, [250]);
    queue.shutDown();
    await loop.stopped;
  });

  it("finishes in-flight work before stopping", async () => {
    const clock = new ManualClock();
    const queue = new WorkQueue({ clock });
    let finished = false;
    const loop = startReconcileLoop({
      queue,
      workers: 1,
      clock,
      reconcile: async () => {
        await clock.sleep(20);
        finished = true;
        return {};
      },
    });
    queue.add("k");
    await idle();
    assert.equal(queue.inFlight, 1);
    queue.shutDown();
    let stopped = false;
    void loop.stopped.then(() => {
      stopped = true;
    });
    await idle();
    assert.equal(stopped, false, "waits for the key in flight");
    await clock.advance(20);
    await loop.stopped;
    assert.equal(finished, true);
  });
});
