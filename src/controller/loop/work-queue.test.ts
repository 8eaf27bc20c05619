import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock } from "../../../test/support/manual-clock.js";
import { FRESH_RUN, WorkQueue } from "./work-queue.js";

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
    assert.deepEqual(
      [q.addRateLimited("k"), q.addRateLimited("k"), q.addRateLimited("k"), q.addRateLimited("k")],
      [10, 20, 40, 50],
    );
    assert.equal(q.addRateLimited("other"), 10, "backoff is per key");
    q.forget("k");
    assert.equal(q.failureCount("k"), 0);
    assert.equal(q.addRateLimited("k"), 10);
    q.shutDown();
  });

  it("adds a key after its delay, keeping the earliest of two delays", async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    q.addAfter("d", 200);
    q.addAfter("d", 20); // sooner: replaces the pending 200
    await clock.advance(19);
    assert.equal(q.length, 0, "not before its delay");
    await clock.advance(1);
    assert.equal(q.length, 1, "at 20 ms, not 200");
    assert.equal(await q.get(), "d");
    q.done("d");
    await clock.advance(500);
    assert.equal(q.length, 0, "the replaced 200 ms add never fires");

    q.addAfter("e", 20);
    q.addAfter("e", 200); // later: the pending 20 stays
    await clock.advance(20);
    assert.equal(q.length, 1, "the earlier delay wins");
    assert.equal(await q.get(), "e");
    q.done("e");
    await clock.advance(500);
    assert.equal(q.length, 0, "the later add was not scheduled too");
    q.shutDown();
  });

  it("drops delayed adds on shutdown", async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    q.addAfter("k", 50);
    q.shutDown();
    await clock.advance(100);
    assert.equal(q.length, 0);
    assert.equal(clock.timers, 0, "its timer was cancelled");
  });

  it("re-queues a failed key after base x 2^(failures-1), on the clock", async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 10_000, clock });
    q.addRateLimited("k");
    q.addRateLimited("k"); // second failure: 200 ms, but the first add (100 ms) is sooner
    await clock.advance(99);
    assert.equal(q.length, 0);
    await clock.advance(1);
    assert.equal(q.length, 1);
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

  it("hands out fresh work before requeues and retries, FIFO within each lane", async () => {
    const q = new WorkQueue();
    q.add("old-1");
    q.add("old-2");
    q.addFresh("new-1");
    q.add("old-3");
    q.addFresh("new-2");
    const order: string[] = [];
    for (let i = 0; i < 5; i++) order.push((await q.get()) ?? "");
    assert.deepEqual(order, ["new-1", "new-2", "old-1", "old-2", "old-3"]);
    assert.equal(q.length, 0);
  });

  it("keeps one entry per key across lanes: a fresh add promotes a waiting key, a plain add never demotes it", async () => {
    const q = new WorkQueue();
    q.add("a");
    q.add("b");
    q.addFresh("b");
    q.add("b");
    assert.equal(q.length, 2, "b is queued once");
    assert.equal(await q.get(), "b");
    assert.equal(await q.get(), "a");
    q.done("a");
    q.done("b");
    assert.equal(q.length, 0, "the stale entry of b is never handed out");
    q.add("c");
    assert.equal(await q.get(), "c");
  });

  it("never hands a key to two workers, whichever lane re-queues it while in flight", async () => {
    const q = new WorkQueue();
    q.addFresh("k");
    assert.equal(await q.get(), "k");
    q.add("k");
    q.addFresh("k");
    q.add("other");
    assert.equal(await q.get(), "other", "k is in flight: not handed out again");
    q.addFresh("x");
    q.done("k");
    assert.equal(q.length, 2);
    assert.equal(await q.get(), "x", "fresh, FIFO: x came first");
    assert.equal(await q.get(), "k", "k was promoted while in flight");
  });

  it("lets a waiting retry through after a run of fresh keys, so neither lane starves", async () => {
    const q = new WorkQueue();
    q.add("retry");
    for (let i = 0; i < FRESH_RUN + 2; i++) q.addFresh(`f${i}`);
    const order: string[] = [];
    for (let i = 0; i < FRESH_RUN + 3; i++) order.push((await q.get()) ?? "");
    assert.equal(order.indexOf("retry"), FRESH_RUN, order.join(" "));
  });

  it("retries the server's failures at once when it is back, forgetting their backoff, and leaves the others alone", async () => {
    const q = new WorkQueue({ baseDelayMs: 60_000, maxDelayMs: 1_000_000 });
    for (let i = 0; i < 10; i++) q.addRateLimited("outage", { transient: true }); // ten failures during an outage
    q.addRateLimited("forbidden");
    q.addRateLimited("flaky", { transient: true });
    q.addRateLimited("flaky"); // its last failure was not the server's
    assert.equal(q.length, 0, "all backing off");
    assert.equal(q.retryTransientNow(), 1);
    assert.equal(q.length, 1);
    assert.equal(await q.get(), "outage");
    q.done("outage");
    assert.equal(q.failureCount("outage"), 0, "its backoff starts over");
    assert.equal(
      q.addRateLimited("outage", { transient: true }),
      60_000,
      "the next failure waits the base delay, not 2^10 of it",
    );
    assert.equal(q.failureCount("forbidden"), 1);
    assert.equal(q.retryTransientNow(), 1, "only the new transient failure");
    assert.equal(q.retryTransientNow(), 0, "nothing twice");
    q.shutDown();
  });

  it("hands the retried keys out no faster than the workers take them, behind fresh work", async () => {
    const q = new WorkQueue({ baseDelayMs: 60_000 });
    for (let i = 0; i < 100; i++) q.addRateLimited(`k${i}`, { transient: true });
    q.retryTransientNow();
    q.addFresh("new");
    assert.equal(q.inFlight, 0, "queued, not started: the workers pace them");
    assert.equal(await q.get(), "new", "a new instance does not wait behind the retries");
    assert.equal(q.length, 100);
    q.shutDown();
  });
});

describe("WorkQueue with fair flows", () => {
  const flows = { depth: 1, of: (key: string) => [key.split("/")[0] ?? ""] };

  it("hands a cheap tenant's key out before an expensive tenant's backlog, wherever it was queued", async () => {
    const clock = new ManualClock();
    const waits: [string, number][] = [];
    const q = new WorkQueue({ clock, flows, onWait: (key, ms) => waits.push([key, ms]) });
    for (let i = 0; i < 20; i++) q.add(`hostile/${i}`);
    // The hostile tenant's first key holds a worker for 1.9 s.
    const first = await q.get();
    assert.equal(first, "hostile/0");
    await clock.advance(1900);
    q.done("hostile/0");
    q.add("benign/0");
    q.add("benign/1");
    assert.equal(await q.get(), "benign/0", "queued behind 19 hostile keys, handed out first");
    await clock.advance(10);
    q.done("benign/0");
    assert.equal(await q.get(), "benign/1");
    q.done("benign/1");
    assert.equal(await q.get(), "hostile/1", "the hostile tenant still gets the workers nobody else wants");
    assert.deepEqual(waits.slice(0, 2), [
      ["hostile/0", 0],
      ["benign/0", 0],
    ]);
    assert.deepEqual(waits[2], ["benign/1", 10], "the wait is measured on the queue's clock");
    q.shutDown();
  });

  it("keeps fresh work first within a flow, and one key per flow never goes to two workers", async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock, flows });
    q.add("a/old");
    q.addFresh("a/new");
    assert.equal(await q.get(), "a/new");
    q.add("a/new"); // while in flight: re-queued when done
    assert.equal(await q.get(), "a/old");
    assert.equal(q.length, 0);
    q.done("a/new");
    assert.equal(await q.get(), "a/new");
    q.shutDown();
  });
});
