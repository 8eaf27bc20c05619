// The controller's pass deadline counts the evaluating thread's work: time it spends waiting
// (here: sleeping, as when other processes have the CPU) is not counted against an instance.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { threadCpuMs } from "../clock/index.js";
import { runtimeOptionsFor } from "./runtime-options.js";

type Ctx = Parameters<typeof runtimeOptionsFor>[0];
const ctx = (evaluationTimeoutMs: number): Ctx =>
  ({
    kroVersion: "v0.9.0",
    options: { evaluationTimeoutMs, maxCollectionSize: 1000 },
    served: { forKind: () => undefined },
    cacheScoping: undefined,
  }) as unknown as Ctx;

describe("runtime options of a controller pass", () => {
  it("give a deadline of the thread's work: 400 ms asleep count as (almost) nothing", async () => {
    const deadline = runtimeOptionsFor(ctx(2000)).passDeadline;
    assert.ok(deadline !== undefined);
    assert.equal(deadline.budgetMs, 2000);
    const start = deadline.now();
    await sleep(400);
    const counted = deadline.now() - start;
    if (threadCpuMs() === undefined) assert.ok(counted >= 399, "no thread CPU time here (not Linux): the wall clock");
    else assert.ok(counted < 200, `${counted.toFixed(0)} ms of 400 ms asleep counted as work`);
  });

  it("give no deadline with --evaluation-timeout 0", () => {
    assert.equal(runtimeOptionsFor(ctx(0)).passDeadline, undefined);
  });
});
