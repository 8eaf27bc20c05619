import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fitThreadMemory, NODE_OVERHEAD_MB } from "./memory-fit.js";

const render = { threads: 4, heapMb: 256 };
const evaluation = { threads: 2, heapMb: 128 };
const promised = (fit: ReturnType<typeof fitThreadMemory>) =>
  fit.render.threads * fit.render.heapMb + fit.evaluation.threads * fit.evaluation.heapMb;

describe("fitThreadMemory", () => {
  it("leaves the pools alone without a limit, or when the limit has room for both", () => {
    assert.deepEqual(fitThreadMemory(undefined, 4144, render, evaluation), { render, evaluation });
    assert.deepEqual(fitThreadMemory(4096, 2048, render, evaluation), { render, evaluation });
  });

  it("counts the evaluation threads: a limit with room for the render threads alone is shared by both pools", () => {
    // 2048 − 700 − 96 = 1252 MiB: the four render threads' 1024 fit, with the two evaluation threads' 256 they do not.
    const fit = fitThreadMemory(2048, 700, render, evaluation);
    assert.ok(promised(fit) <= 2048 - 700 - NODE_OVERHEAD_MB, `everything promised fits: ${JSON.stringify(fit)}`);
    assert.deepEqual(fit.evaluation, evaluation, "the smaller request is met in full");
    assert.deepEqual(fit.render, { threads: 4, heapMb: 249 }, "the render threads share what it leaves");
    assert.match(fit.note ?? "", /chart renders 4 × 249 MiB, evaluations 2 × 128 MiB.*leaves 1252 MiB/);
  });

  it("uses fewer render threads before any thread goes under the smallest useful heap, never fewer than two", () => {
    // A 512 MiB container (V8's main heap there: ~260 MiB) leaves 156 MiB: six threads would get 26 each.
    const fit = fitThreadMemory(512, 260, render, evaluation);
    assert.deepEqual(
      [fit.render, fit.evaluation],
      [
        { threads: 2, heapMb: 39 },
        { threads: 2, heapMb: 39 },
      ],
    );
    assert.ok(promised(fit) + 260 + NODE_OVERHEAD_MB <= 512, "everything promised fits under the limit");
    const roomier = fitThreadMemory(640, 260, render, evaluation);
    assert.deepEqual([roomier.render.threads, roomier.render.heapMb, roomier.evaluation.heapMb], [4, 47, 47]);
  });

  it("says so when even two render threads and the evaluation threads at the smallest heap do not fit", () => {
    const cramped = fitThreadMemory(400, 250, render, evaluation);
    assert.deepEqual(
      [cramped.render, cramped.evaluation],
      [
        { threads: 2, heapMb: 32 },
        { threads: 2, heapMb: 32 },
      ],
    );
    assert.match(cramped.note ?? "", /cannot fit.*--max-old-space-size/);
  });
});
