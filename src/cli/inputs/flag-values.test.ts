import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { durationFlag, nonNegativeNumber, parseDuration, positiveInteger } from "./flag-values.js";

describe("controller flag values", () => {
  it("parses durations with units, compounds and plain milliseconds", () => {
    for (const [text, ms] of [
      ["500ms", 500],
      ["3s", 3000],
      ["1m", 60_000],
      ["10h", 36_000_000],
      ["1h30m", 5_400_000],
      ["1.5s", 1500],
      ["250", 250],
      [" 2s ", 2000],
    ] as const) {
      assert.equal(parseDuration(text), ms, text);
    }
  });

  it("rejects zero, negative, garbage and overlong durations with the flag's name", () => {
    assert.throws(() => durationFlag("--resync-period", "0"), /--resync-period must be greater than 0, got "0"/);
    assert.throws(() => durationFlag("--resync-period", "0s"), /--resync-period must be greater than 0/);
    assert.throws(() => durationFlag("--resync-period", "-5s"), /--resync-period: invalid duration "-5s"/);
    assert.throws(() => durationFlag("--resync-period", "soon"), /--resync-period: invalid duration "soon"/);
    assert.throws(() => durationFlag("--resync-period", "5sx"), /invalid duration/);
    assert.throws(() => durationFlag("--resync-period", ""), /invalid duration/);
    assert.throws(() => durationFlag("--resync-period", "1000h"), /longer than the longest timer/);
    assert.equal(durationFlag("--instance-requeue-interval", "0", { allowZero: true }), 0);
  });

  it("rejects bad numbers", () => {
    assert.throws(() => nonNegativeNumber("--client-qps", "-1"), /--client-qps must be a non-negative number/);
    assert.throws(() => nonNegativeNumber("--client-qps", "fast"), /--client-qps/);
    assert.throws(() => nonNegativeNumber("--client-qps", ""), /--client-qps/);
    assert.equal(nonNegativeNumber("--client-qps", "0"), 0);
    assert.throws(() => positiveInteger("--workers", "0"), /--workers must be a whole number of at least 1, got "0"/);
    assert.throws(() => positiveInteger("--workers", "2.5"), /--workers/);
    assert.equal(positiveInteger("--workers", "8"), 8);
  });
});
