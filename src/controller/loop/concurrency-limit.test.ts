// The concurrency limit step by step: what each kind of window does to the limit, and a run of
// windows the way a slow API server, then an overloaded one, would produce them.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  initialConcurrency,
  isOverloadAnswer,
  stepConcurrency,
  type ConcurrencyState,
  type ConcurrencyWindow,
} from "./concurrency-limit.js";
import { RequestSignals } from "./request-signals.js";

const bounds = { min: 4, max: 32 };
const quiet: ConcurrencyWindow = { requests: 100, overloaded: 0, throttled: 0, saturated: 0, busy: 0.2 };
const backlog: ConcurrencyWindow = { ...quiet, saturated: 1 };

describe("stepConcurrency", () => {
  it("starts at the floor, with growth unbounded below the ceiling", () => {
    assert.deepEqual(initialConcurrency(bounds), { limit: 4, threshold: 32 });
  });

  it("grows by half while every slot is busy and keys wait, then by one above the threshold, never past the ceiling", () => {
    let state: ConcurrencyState = initialConcurrency(bounds);
    const limits: number[] = [];
    const reasons: string[] = [];
    for (let i = 0; i < 7; i++) {
      const next = stepConcurrency(state, backlog, bounds);
      reasons.push(next.reason);
      state = next;
      limits.push(state.limit);
    }
    assert.deepEqual(limits, [6, 9, 14, 21, 32, 32, 32]);
    assert.deepEqual(reasons, ["grew", "grew", "grew", "grew", "grew", "steady", "steady"]);
    const above = stepConcurrency({ limit: 10, threshold: 8 }, backlog, bounds);
    assert.deepEqual(above, { limit: 11, threshold: 8, reason: "grew" });
  });

  it("stays when fewer than half the window was saturated", () => {
    const state = { limit: 8, threshold: 32 };
    assert.equal(stepConcurrency(state, { ...backlog, saturated: 0.4 }, bounds).limit, 8);
    assert.equal(stepConcurrency(state, quiet, bounds).reason, "steady");
  });

  it("gives one back while the event loop itself is the bound, backlog or not, down to the floor", () => {
    const state = { limit: 8, threshold: 32 };
    assert.deepEqual(stepConcurrency(state, { ...backlog, busy: 0.95 }, bounds), {
      limit: 7,
      threshold: 7,
      reason: "busy",
    });
    assert.equal(stepConcurrency(state, { ...quiet, busy: 0.9 }, bounds).limit, 7);
    assert.equal(stepConcurrency({ limit: 4, threshold: 4 }, { ...backlog, busy: 1 }, bounds).limit, 4);
  });

  it("gives one back when the client's own rate limiter held most requests, ends fast growth there, and keeps the floor", () => {
    const next = stepConcurrency({ limit: 14, threshold: 32 }, { ...backlog, throttled: 60 }, bounds);
    assert.deepEqual(next, { limit: 13, threshold: 13, reason: "throttled" });
    assert.equal(stepConcurrency(next, backlog, bounds).limit, 14, "then grows by one");
    assert.equal(stepConcurrency({ limit: 4, threshold: 32 }, { ...quiet, throttled: 90 }, bounds).limit, 4);
    assert.equal(stepConcurrency(next, { ...backlog, throttled: 50 }, bounds).limit, 14, "half held is not most");
  });

  it("does not grow in a window that sent about the client's rate limit, though nobody waited (the burst)", () => {
    const state = { limit: 6, threshold: 32 };
    assert.deepEqual(stepConcurrency(state, { ...backlog, requests: 95, budget: 100 }, bounds), {
      limit: 6,
      threshold: 6,
      reason: "throttled",
    });
    assert.equal(stepConcurrency(state, { ...backlog, requests: 50, budget: 100 }, bounds).reason, "grew");
    assert.equal(stepConcurrency(state, { ...quiet, requests: 95, budget: 100 }, bounds).reason, "steady");
  });

  it("shrinks by 0.7 on any overload answer, to no less than the floor, and grows by one afterwards", () => {
    const next = stepConcurrency({ limit: 20, threshold: 32 }, { ...backlog, overloaded: 1 }, bounds);
    assert.deepEqual(next, { limit: 14, threshold: 14, reason: "overloaded" });
    assert.equal(stepConcurrency(next, backlog, bounds).limit, 15);
    assert.equal(stepConcurrency({ limit: 5, threshold: 5 }, { ...quiet, overloaded: 3 }, bounds).limit, 4);
  });

  it("a fixed range never moves", () => {
    const fixed = { min: 4, max: 4 };
    assert.equal(stepConcurrency(initialConcurrency(fixed), backlog, fixed).limit, 4);
  });

  it("counts 429, 503, 504 and no answer as overload; a 500 from a webhook or a 409 is not", () => {
    assert.deepEqual([0, 200, 409, 429, 500, 503, 504].map(isOverloadAnswer), [
      true,
      false,
      false,
      true,
      false,
      true,
      true,
    ]);
  });
});

describe("RequestSignals", () => {
  it("counts a window's answers, overloads and limiter waits, and its request budget from the client's QPS", () => {
    let now = 0;
    const signals = new RequestSignals(100, () => now);
    now = 1500;
    signals.answered(200);
    signals.answered(429);
    signals.answered(0);
    signals.heldByLimiter();
    assert.deepEqual(signals.take(), { requests: 3, overloaded: 2, throttled: 1, budget: 150 });
    now = 2500;
    assert.deepEqual(signals.take(), { requests: 0, overloaded: 0, throttled: 0, budget: 100 });
    assert.equal(new RequestSignals(0, () => now).take().budget, undefined, "no limit: no budget");
  });
});
