import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fitRenderMemory } from "./memory-fit.js";

describe("fitRenderMemory", () => {
  it("leaves the pool alone without a limit, or when the limit has room for it", () => {
    assert.deepEqual(fitRenderMemory(undefined, 4144, 4, 256), { threads: 4, heapMb: 256 });
    assert.deepEqual(fitRenderMemory(4096, 2048, 4, 256), { threads: 4, heapMb: 256 });
  });

  it("shares what a 512 MiB container leaves between the threads (V8's main heap there: ~260 MiB)", () => {
    const fit = fitRenderMemory(512, 260, 4, 256);
    assert.deepEqual({ threads: fit.threads, heapMb: fit.heapMb }, { threads: 4, heapMb: 39 });
    assert.ok(fit.threads * fit.heapMb + 260 + 96 <= 512, "everything promised fits under the limit");
    assert.match(fit.note ?? "", /512 MiB.*260 MiB.*leaves 156 MiB/);
  });

  it("uses fewer threads before going under the smallest useful heap, never fewer than two", () => {
    assert.deepEqual(
      { ...fitRenderMemory(512, 330, 4, 256), note: undefined },
      { threads: 2, heapMb: 43, note: undefined },
    );
    const cramped = fitRenderMemory(400, 300, 4, 256);
    assert.equal(cramped.threads, 2);
    assert.equal(cramped.heapMb, 32);
    assert.match(cramped.note ?? "", /cannot fit.*--max-old-space-size/);
  });
});
