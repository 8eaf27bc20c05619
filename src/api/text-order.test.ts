import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { compareCodeUnits } from "./text-order.js";

describe("compareCodeUnits", () => {
  it("orders by code unit: upper case before lower, punctuation before letters, NUL counted", () => {
    assert.deepEqual(["b", "a-b", "B", "ab", "a", "a\u0000c", "a\u0000b"].sort(compareCodeUnits), [
      "B",
      "a",
      "a\u0000b",
      "a\u0000c",
      "a-b",
      "ab",
      "b",
    ]);
  });
  it("is a consistent comparator (antisymmetric, zero only for equal strings)", () => {
    for (const [a, b] of [
      ["x", "y"],
      ["Z", "a"],
      ["", "a"],
      ["é", "f"],
    ] as const) {
      assert.equal(compareCodeUnits(a, b), -compareCodeUnits(b, a));
      assert.notEqual(compareCodeUnits(a, b), 0);
    }
    assert.equal(compareCodeUnits("same", "same"), 0);
  });
});
