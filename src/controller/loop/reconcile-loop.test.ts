import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TerminalError, TransientError, startReconcileLoop, type ReconcileOutcome } from "./reconcile-loop.js";
import { WorkQueue } from "./work-queue.js";

function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const poll = setInterval(() => {
      if (check()) {
        clearInterval(poll);
        resolve();
      } else if (Date.now() > deadline) {
        clearInterval(poll);
        reject(new Error("condition not reached"));
      }
    }, 2);
  });
}

describe("startReconcileLoop", () => {
  it("retries a failing key with backoff, then forgets it on success", async () => {
    const queue = new WorkQueue({ baseDelayMs: 1 });
    let attempts = 0;
    const outcomes: ReconcileOutcome["kind"][] = [];
    const loop = startReconcileLoop({
      queue, workers: 2,
      reconcile: () => {
        attempts += 1;
        if (attempts < 3) return Promise.reject(new Error("transient"));
        return Promise.resolve({});
      },
      onOutcome: (_key, outcome) => outcomes.push(outcome.kind),
    });
    queue.add("ns/a");
    await until(() => outcomes.length === 3);
    assert.deepEqual(outcomes, ["error", "error", "success"]);
    assert.equal(queue.failureCount("ns/a"), 0);
    queue.shutDown();
    await loop.stopped;
  });

  it("marks the server's failures (by the predicate, or a TransientError) for a prompt retry when it is back", async () => {
    const queue = new WorkQueue({ baseDelayMs: 60_000 });
    const seen: string[] = [];
    const loop = startReconcileLoop({
      queue, workers: 1,
      isTransient: (e) => e instanceof Error && e.message === "503",
      reconcile: (key) => {
        seen.push(key);
        return Promise.reject(key === "by-class" ? new TransientError("writes failed: 503") : new Error(key === "by-predicate" ? "503" : "403"));
      },
    });
    for (const key of ["by-predicate", "by-class", "forbidden"]) queue.add(key);
    await until(() => seen.length === 3);
    await until(() => queue.inFlight === 0);
    assert.equal(queue.retryTransientNow(), 2, "the 403 keeps its backoff");
    await until(() => seen.length === 5);
    assert.deepEqual(seen.slice(3).sort(), ["by-class", "by-predicate"]);
    queue.shutDown();
    await loop.stopped;
  });

  it("does not retry a terminal error", async () => {
    const queue = new WorkQueue({ baseDelayMs: 1 });
    let attempts = 0;
    const loop = startReconcileLoop({ queue, workers: 1, reconcile: () => { attempts += 1; return Promise.reject(new TerminalError("invalid")); } });
    queue.add("k");
    await until(() => attempts === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(attempts, 1);
    queue.shutDown();
    await loop.stopped;
  });

  it("keeps other keys flowing while one key is slow", async () => {
    const queue = new WorkQueue();
    const done: string[] = [];
    let releaseSlow: () => void = () => undefined;
    const loop = startReconcileLoop({
      queue, workers: 2,
      reconcile: async (key) => {
        if (key === "slow") await new Promise<void>((resolve) => { releaseSlow = resolve; });
        done.push(key);
        return {};
      },
    });
    queue.add("slow");
    for (const k of ["a", "b", "c"]) queue.add(k);
    await until(() => done.length === 3);
    assert.deepEqual(done, ["a", "b", "c"]);
    releaseSlow();
    await until(() => done.length === 4);
    queue.shutDown();
    await loop.stopped;
  });

  it("requeues after the requested delay", async () => {
    const queue = new WorkQueue();
    let calls = 0;
    const loop = startReconcileLoop({ queue, workers: 1, reconcile: () => { calls += 1; return Promise.resolve(calls === 1 ? { requeueAfterMs: 10 } : {}); } });
    queue.add("k");
    await until(() => calls === 2);
    queue.shutDown();
    await loop.stopped;
  });

  it("finishes in-flight work before stopping", async () => {
    const queue = new WorkQueue();
    let finished = false;
    const loop = startReconcileLoop({
      queue, workers: 1,
      reconcile: async () => { await new Promise((resolve) => setTimeout(resolve, 20)); finished = true; return {}; },
    });
    queue.add("k");
    await until(() => queue.inFlight === 1);
    queue.shutDown();
    await loop.stopped;
    assert.equal(finished, true);
  });
});
