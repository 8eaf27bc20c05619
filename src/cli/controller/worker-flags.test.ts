import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_MAX_WORKERS, maxWorkersFlag } from "./worker-flags.js";

describe("--max-workers", () => {
  it("defaults to the larger of 32 and --workers", () => {
    assert.equal(maxWorkersFlag({ workers: "4" }), DEFAULT_MAX_WORKERS);
    assert.equal(maxWorkersFlag({ workers: "50" }), 50);
  });

  it("equal to --workers fixes the number; below it is refused naming both", () => {
    assert.equal(maxWorkersFlag({ workers: "4", maxWorkers: "4" }), 4);
    assert.throws(
      () => maxWorkersFlag({ workers: "8", maxWorkers: "4" }),
      /--max-workers \(4\) must be at least --workers \(8\)/,
    );
    assert.throws(() => maxWorkersFlag({ workers: "4", maxWorkers: "0" }), /--max-workers must be a whole number/);
  });
});
