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
  it("a string doubled towards 100 MB by cel.bind fails fast with a cost error", () => {
    const started = performance.now();
    assert.throws(() => evaluate(doubling(27)), (e: unknown) => isCostLimitExceeded(e) && /cost limit/.test(e.message));
    assert.ok(performance.now() - started < 1000, "the cost error must come before the string gets big");
  });
  it("small concatenations stay cheap", () => {
    assert.equal(evaluate(doubling(4)), "x".repeat(16));
  });
  it("list concatenation is charged by size", () => {
    assert.throws(() => evaluate("cel.bind(a, lists.range(100000), a + a + a + a + a + a + a + a + a + a + a + a)"), isCostLimitExceeded);
  });
  it("replace charges the size of its result before building it", () => {
    const s = "a".repeat(10_000);
    const started = performance.now();
    assert.throws(() => evaluate('s.replace("a", s)', { s }), isCostLimitExceeded);
    assert.ok(performance.now() - started < 1000);
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
    assert.throws(() => evaluate("lists.range(100000).all(i, i >= 0)", {}, budget), (e: unknown) => isCostLimitExceeded(e) && /time limit of 50 ms/.test(e.message));
  });
  it("does not fire before the deadline", () => {
    const budget = new CostBudget(Number.MAX_SAFE_INTEGER, { now: () => 0, at: 50, budgetMs: 50 });
    assert.equal(evaluate("lists.range(1000).all(i, i >= 0)", {}, budget), true);
  });
});
