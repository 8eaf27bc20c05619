// Where a pass runs (fake pool, fake clock): on the main thread while it fits a slice; past the
// slice, again in the pool with the whole budget, and that instance's passes stay there until
// one is cheap again.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryLookup, evaluateInstance, type RuntimeOptions } from "../../runtime/index.js";
import { compileFixture, instanceOf } from "../../../test/unit-support/runtime/fixtures.js";
import type { EvaluationJob, PoolEvaluation } from "./evaluation-pool.js";
import { EvaluationRoute } from "./evaluation-route.js";

const graph = compileFixture("includewhen-chain");

/** A main-thread clock that moves `step` ms at each reading (a slow pass reads it between nodes and steps). */
function clock(): { now: () => number; step: number; t: number } {
  const c = {
    t: 0,
    step: 0,
    now: () => (c.t += c.step),
  };
  return c;
}

function fakePool(workMs = 400): { evaluate(job: EvaluationJob): Promise<PoolEvaluation>; jobs: EvaluationJob[] } {
  const jobs: EvaluationJob[] = [];
  return {
    jobs,
    evaluate(job) {
      jobs.push(job);
      const { passDeadline: _none, ...options } = job.options;
      return Promise.resolve({
        ok: true,
        evaluation: evaluateInstance(job.graph, job.instance, job.lookup, options),
        workMs,
      });
    },
  };
}

const deadline = (budgetMs: number): RuntimeOptions => ({ passDeadline: { now: () => 0, budgetMs } });

describe("evaluation route", () => {
  const instance = instanceOf(graph, { name: "x", cache: true });
  const request = (key: string, options: RuntimeOptions = deadline(2000)) => ({
    key,
    flow: "team",
    graph,
    instance,
    lookup: createMemoryLookup(),
    options,
  });

  it("a pass within its slice runs here and never reaches the pool", async () => {
    const time = clock();
    time.step = 1;
    const pool = fakePool();
    const route = new EvaluationRoute(pool, { sliceMs: 50, now: time.now });
    const evaluation = await route.evaluate(request("team/a"));
    assert.equal(evaluation.error, undefined);
    assert.ok(evaluation.apply.length > 0);
    assert.equal(pool.jobs.length, 0);
    assert.equal(route.pooled("team/a"), false);
  });

  it("a pass past its slice runs again in the pool with its whole budget; the instance's next passes go straight there", async () => {
    const time = clock();
    time.step = 30;
    const pool = fakePool();
    const pooled: string[] = [];
    const route = new EvaluationRoute(pool, {
      sliceMs: 50,
      now: time.now,
      onPooled: (flow, workMs) => pooled.push(`${flow}:${workMs}`),
    });
    const first = await route.evaluate(request("team/a"));
    assert.equal(first.error, undefined, "the pool's answer, not the slice's time-limit error");
    assert.ok(first.apply.length > 0);
    assert.equal(pool.jobs.length, 1);
    const [job] = pool.jobs;
    assert.ok(job);
    assert.equal(job.deadlineMs, 2000);
    assert.equal(job.flow, "team");
    assert.equal(job.options.passDeadline, undefined, "the worker keeps its own clock");
    assert.equal(route.pooled("team/a"), true);
    assert.deepEqual(pooled, ["team:400"]);

    const readings = time.t;
    await route.evaluate(request("team/a"));
    assert.equal(pool.jobs.length, 2);
    assert.equal(time.t, readings, "not tried on the main thread first");

    // Another instance of the same graph is judged on its own.
    time.step = 1;
    await route.evaluate(request("team/b"));
    assert.equal(pool.jobs.length, 2);
  });

  it("an instance whose pass in the pool was cheap comes back to the main thread", async () => {
    const time = clock();
    time.step = 30;
    const pool = fakePool(3);
    const route = new EvaluationRoute(pool, { sliceMs: 50, now: time.now });
    await route.evaluate(request("team/a"));
    assert.equal(route.pooled("team/a"), false);
    time.step = 1;
    await route.evaluate(request("team/a"));
    assert.equal(pool.jobs.length, 1);
  });

  it("a budget within the slice, or none, keeps the pass here as it always was", async () => {
    const time = clock();
    time.step = 30;
    const pool = fakePool();
    const route = new EvaluationRoute(pool, { sliceMs: 50, now: time.now });
    const tight = await route.evaluate(
      request("team/a", { passDeadline: { now: () => (time.t += 30), budgetMs: 40 } }),
    );
    assert.match(tight.error ?? "", /time limit of 40 ms/);
    await route.evaluate(request("team/a", {}));
    assert.equal(pool.jobs.length, 0);
  });

  it("a pass the pool could not finish is an error on that instance that applies nothing", async () => {
    const time = clock();
    time.step = 30;
    const route = new EvaluationRoute(
      {
        evaluate: () =>
          Promise.resolve({
            ok: false,
            error: "evaluation pass exceeded its time limit of 2000 ms (its worker thread was stopped)",
            limit: "time",
          }),
      },
      { sliceMs: 50, now: time.now },
    );
    const evaluation = await route.evaluate(request("team/a"));
    assert.match(evaluation.error ?? "", /time limit of 2000 ms \(its worker thread was stopped\)/);
    assert.deepEqual(evaluation.apply, []);
    assert.equal(evaluation.pending, false);
  });

  it("passes that together took a slice of this turn of the event loop let it turn before the next one runs", async () => {
    let t = 0;
    const order: string[] = [];
    const inner = createMemoryLookup();
    // Each pass reads two objects, 15 ms of work each: 30 ms, within the slice; two take 60.
    const reading = (key: string) => ({
      ...request(key),
      lookup: {
        get: (identity: Parameters<typeof inner.get>[0]) => {
          t += 15;
          if (order.at(-1) !== key) order.push(key);
          return inner.get(identity);
        },
        list: (query: Parameters<typeof inner.list>[0]) => inner.list(query),
      },
    });
    const pool = fakePool();
    const route = new EvaluationRoute(pool, { sliceMs: 50, now: () => t });
    setImmediate(() => order.push("turn"));
    await Promise.all([route.evaluate(reading("a")), route.evaluate(reading("b")), route.evaluate(reading("c"))]);
    assert.deepEqual(order, ["a", "b", "turn", "c"]);
    assert.equal(pool.jobs.length, 0, "each pass fit its slice");
  });

  it("forget drops what was learnt about an instance", async () => {
    const time = clock();
    time.step = 30;
    const route = new EvaluationRoute(fakePool(), { sliceMs: 50, now: time.now });
    await route.evaluate(request("team/a"));
    route.forget("team/a");
    assert.equal(route.pooled("team/a"), false);
  });
});
