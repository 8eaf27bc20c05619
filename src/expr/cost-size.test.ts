import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileExpression } from "./compile.js";
import { CostBudget } from "./cost.js";
import { createKroCelEnvironment } from "./environment.js";
import { isCostLimitExceeded } from "./errors.js";

const env = createKroCelEnvironment();
const evaluate = (expr: string, vars: Record<string, unknown> = {}, budget?: CostBudget): unknown =>
  compileExpression(env, expr).evaluate(vars, budget === undefined ? {} : { budget });

/** `cel.bind` doubling: 2^(levels) characters from one. */
function doubling(levels: number): string {
  let expr = "s";
  for (let i = levels; i > 0; i--) expr = `cel.bind(v${i}, v${i - 1} + v${i - 1}, ${expr})`;
  return `cel.bind(v0, "x", ${expr.replace(/s$/, `v${levels}`).replace(/, s\)/, `, v${levels})`)})`;
}

describe("sizes of built values are charged (Kubernetes' CEL cost model)", () => {
  it("a string doubled past what V8 can hold by cel.bind fails with a cost error", () => {
    // 2^30 characters is over V8's longest string: had the sizes gone uncharged, the doubling
    // would end in "RangeError: Invalid string length", not in a cost error.
    assert.throws(
      () => evaluate(doubling(30)),
      (e: unknown) => isCostLimitExceeded(e) && /cost limit/.test(e.message),
    );
  });
  it("small concatenations stay cheap", () => {
    assert.equal(evaluate(doubling(4)), "x".repeat(16));
  });
  it("list concatenation is charged by size", () => {
    assert.throws(
      () => evaluate("cel.bind(a, lists.range(100000), a + a + a + a + a + a + a + a + a + a + a + a)"),
      isCostLimitExceeded,
    );
  });
  it("replace charges the size of its result before building it", () => {
    // 2^15 × 2^15 characters is over V8's longest string: built before it is charged, the
    // result would be a RangeError ("Invalid string length"), not a cost error.
    const s = "a".repeat(2 ** 15);
    assert.throws(() => evaluate('s.replace("a", s)', { s }), isCostLimitExceeded);
  });
  it("join, format and friends are charged by the size of their result", () => {
    const budget = new CostBudget(1e9);
    evaluate('l.join(",")', { l: Array.from({ length: 10_000 }, () => "abcdefghij") }, budget);
    assert.ok(budget.used > 10_000, `used ${budget.used}`);
  });
});

describe("a wall-clock deadline on the shared budget", () => {
  it("stops a long evaluation with a clear error once the clock passes the deadline", () => {
    let t = 0;
    const budget = new CostBudget(Number.MAX_SAFE_INTEGER, { now: () => (t += 1), at: 50, budgetMs: 50 });
    assert.throws(
      () => evaluate("lists.range(100000).all(i, i >= 0)", {}, budget),
      (e: unknown) => isCostLimitExceeded(e) && /time limit of 50 ms/.test(e.message),
    );
  });
  it("does not fire before the deadline", () => {
    const budget = new CostBudget(Number.MAX_SAFE_INTEGER, { now: () => 0, at: 50, budgetMs: 50 });
    assert.equal(evaluate("lists.range(1000).all(i, i >= 0)", {}, budget), true);
  });
});
