// The adaptive limit end to end in fake time: a reconcile loop with many workers behind slots, a
// queue with a backlog, request signals fed as the client's hooks would feed them. The limit
// grows while the backlog waits on slow work, stops at the client's rate limit, shrinks on
// overload, and a lowered limit is never exceeded by keys handed out afterwards.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock, settle } from "../../../test/support/manual-clock.js";
import { startAdaptiveConcurrency } from "./adaptive-concurrency.js";
import { ConcurrencySlots } from "./concurrency-slots.js";
import { startReconcileLoop } from "./reconcile-loop.js";
import { RequestSignals } from "./request-signals.js";
import { WorkQueue } from "./work-queue.js";

async function idle(): Promise<void> {
  for (let i = 0; i < 5; i++) await settle();
}

/** A loop of `workers` workers whose every key takes `workMs` of fake time, and counts what ran at once. */
function slowLoop(clock: ManualClock, workers: number, slots: ConcurrencySlots, workMs: number) {
  const queue = new WorkQueue({ clock });
  let running = 0;
  let peak = 0;
  const loop = startReconcileLoop({
    queue,
    workers,
    slots,
    clock,
    reconcile: async () => {
      running++;
      peak = Math.max(peak, running);
      await clock.sleep(workMs);
      running--;
      return {};
    },
  });
  return {
    queue,
    loop,
    get running() {
      return running;
    },
    resetPeak() {
      peak = running;
    },
    get peak() {
      return peak;
    },
  };
}

describe("ConcurrencySlots", () => {
  it("lets through up to the limit, in arrival order; a raised limit wakes waiters, a lowered one waits for releases", async () => {
    const slots = new ConcurrencySlots(2);
    const order: number[] = [];
    for (let i = 0; i < 5; i++) void slots.acquire().then(() => order.push(i));
    await settle();
    assert.deepEqual(order, [0, 1]);
    slots.limit = 4;
    await settle();
    assert.deepEqual(order, [0, 1, 2, 3]);
    slots.limit = 1;
    slots.release();
    slots.release();
    await settle();
    assert.deepEqual(order, [0, 1, 2, 3], "2 taken, limit 1: the fifth still waits");
    slots.release();
    slots.release();
    await settle();
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
    assert.equal(slots.taken, 1);
  });

  it("close lets every waiter through, so workers can reach their queue's end", async () => {
    const slots = new ConcurrencySlots(1);
    await slots.acquire();
    let through = false;
    void slots.acquire().then(() => (through = true));
    slots.close();
    await settle();
    assert.ok(through);
  });
});

describe("startAdaptiveConcurrency", () => {
  const bounds = { min: 2, max: 8 };

  /** A loop of slow keys (`workMs` each) with `backlog` keys queued, under an adaptive limit whose steps are recorded. */
  function adaptiveOverBacklog(workMs: number, backlog: number) {
    const clock = new ManualClock();
    const slots = new ConcurrencySlots(bounds.min);
    const work = slowLoop(clock, bounds.max, slots, workMs);
    const signals = new RequestSignals();
    const limits: number[] = [];
    const reasons: string[] = [];
    const adaptive = startAdaptiveConcurrency({
      slots,
      waiting: () => work.queue.length,
      signals,
      bounds,
      clock,
      eventLoopBusy: () => 0.1,
      onStep: (state, reason) => {
        limits.push(state.limit);
        reasons.push(reason);
      },
    });
    for (let i = 0; i < backlog; i++) work.queue.add(`ns/i${i}`);
    return { clock, slots, work, signals, adaptive, limits, reasons };
  }

  it("grows while slow keys keep every slot busy with a backlog, and no loop runs more keys than the limit", async () => {
    const { clock, slots, work, adaptive, limits } = adaptiveOverBacklog(500, 200);
    await idle();
    assert.equal(work.running, 2, "starts at the floor");
    for (let second = 0; second < 5; second++) {
      for (let i = 0; i < 10; i++) await clock.advance(100);
      assert.ok(work.peak <= slots.limit, `peak ${work.peak} within limit ${slots.limit}`);
    }
    assert.deepEqual(limits, [3, 5, 8, 8, 8]);
    assert.equal(work.running, 8, "the pipe is full");
    adaptive.stop();
    assert.equal(clock.timers > 0, true, "keys still sleep");
    work.queue.shutDown();
    slots.close();
    await clock.advance(1000);
    await work.loop.stopped;
  });

  it("gives back at the client's rate limit and shrinks on overload; keys handed out after the drop respect it", async () => {
    const { clock, slots, work, adaptive, signals, reasons } = adaptiveOverBacklog(300, 500);
    const window = async (feed: () => void): Promise<void> => {
      for (let i = 0; i < 10; i++) {
        feed();
        await clock.advance(100);
      }
    };
    await window(() => undefined);
    await window(() => undefined);
    assert.equal(slots.limit, 5);
    // The client's limiter holds most requests: one slot given back.
    await window(() => {
      signals.answered(200);
      signals.heldByLimiter();
    });
    assert.equal(slots.limit, 4);
    await window(() => undefined);
    assert.equal(slots.limit, 5, "grows by one again");
    // A 429: the limit drops to 3, and once the running keys drain, no more than 3 run.
    await window(() => {
      signals.answered(200);
      if (reasons.length === 4) signals.answered(429);
    });
    assert.equal(slots.limit, 3);
    await clock.advance(300);
    work.resetPeak();
    await clock.advance(600);
    assert.ok(work.peak <= 3, `peak ${work.peak} after the drop`);
    assert.deepEqual(reasons.slice(0, 5), ["grew", "grew", "throttled", "grew", "overloaded"]);
    adaptive.stop();
    work.queue.shutDown();
    slots.close();
    await clock.advance(1000);
    await work.loop.stopped;
  });

  it("does not grow when the event loop itself is the bound (gives back instead), nor when nothing waits", async () => {
    const clock = new ManualClock();
    const slots = new ConcurrencySlots(bounds.min);
    let busy = 0.1;
    let waiting = 10;
    const adaptive = startAdaptiveConcurrency({
      slots,
      waiting: () => waiting,
      signals: new RequestSignals(),
      bounds,
      clock,
      eventLoopBusy: () => busy,
    });
    for (let i = 0; i < 3; i++) void slots.acquire();
    await clock.advance(1000);
    assert.equal(slots.limit, 3, "grew while the thread had room");
    busy = 0.95;
    await clock.advance(1000);
    assert.equal(slots.limit, 2, "busy thread: one given back");
    await clock.advance(1000);
    assert.equal(slots.limit, 2, "never below the floor");
    busy = 0.1;
    waiting = 0;
    await clock.advance(1000);
    assert.equal(slots.limit, 2, "no backlog");
    waiting = 10;
    await clock.advance(1000);
    assert.equal(slots.limit, 3);
    adaptive.stop();
    assert.equal(clock.timers, 0, "stop leaves no timer");
  });
});
