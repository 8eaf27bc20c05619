import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WorkQueue } from "./work-queue.js";

describe("WorkQueue", () => {
  it("deduplicates keys that are waiting", async () => {
    const q = new WorkQueue();
    q.add("a");
    q.add("b");
    q.add("a");
    assert.equal(q.length, 2);
    assert.equal(await q.get(), "a");
    assert.equal(await q.get(), "b");
  });

  it("never hands out a key that is in flight; re-queues it when done", async () => {
    const q = new WorkQueue();
    q.add("a");
    const key = await q.get();
    assert.equal(key, "a");
    q.add("a"); // changed while being processed
    assert.equal(q.length, 0, "not handed to a second worker");
    q.done("a");
    assert.equal(q.length, 1);
    assert.equal(await q.get(), "a");
  });

  it("wakes a waiting worker when a key arrives", async () => {
    const q = new WorkQueue();
    const next = q.get();
    q.add("x");
    assert.equal(await next, "x");
    assert.equal(q.inFlight, 1);
  });

  it("backs off exponentially per key and forgets on success", () => {
    const q = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 50 });
    assert.deepEqual([q.addRateLimited("k"), q.addRateLimited("k"), q.addRateLimited("k"), q.addRateLimited("k")], [10, 20, 40, 50]);
    assert.equal(q.addRateLimited("other"), 10, "backoff is per key");
    q.forget("k");
    assert.equal(q.failureCount("k"), 0);
    assert.equal(q.addRateLimited("k"), 10);
    q.shutDown();
  });

  it("adds a key after its delay, keeping the earliest of two delays", async () => {
    const q = new WorkQueue();
    const started = Date.now();
    q.addAfter("d", 200);
    q.addAfter("d", 20);
    assert.equal(await q.get(), "d");
    const waited = Date.now() - started;
    assert.ok(waited >= 15, `waited ${waited} ms`);
    q.done("d");
    q.shutDown();
  });

  it("releases waiting workers on shutdown and ignores later adds", async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.shutDown();
    assert.equal(await waiting, undefined);
    q.add("late");
    assert.equal(await q.get(), undefined);
  });
});
