import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkExpression, CHECK_CODES } from "./check.js";
import { compileExpression } from "./compile.js";
import { createKroCelEnvironment } from "./environment.js";
import { ExprEvaluationError } from "./errors.js";

const env = createKroCelEnvironment();
const evaluate = (expr: string, vars: Record<string, unknown> = {}): unknown =>
  compileExpression(env, expr).evaluate(vars);

describe("regex functions run on RE2", () => {
  it("a catastrophic-backtracking pattern answers", () => {
    // No time bound: a backtracking engine does not answer these at all (2^5000 paths).
    assert.equal(evaluate('s.matches("^(a+)+$")', { s: `${"a".repeat(5000)}b` }), false);
    assert.equal(evaluate('s.find("(x+x+)+y")', { s: "x".repeat(5000) }), "");
  });
  const cases: [string, unknown][] = [
    ['"abc".matches("^a")', true],
    ['"abc".matches("\\\\Aabc\\\\z")', true],
    ['"ABC".matches("(?i)^abc$")', true],
    ['"a1b22".matches("[[:digit:]]+")', true],
    ['"abc 123 def 456".find("[0-9]+")', "123"],
    ['"abc 123 def 456".findAll("[0-9]+")', ["123", "456"]],
    ['"abc 123 def 456".findAll("[0-9]+", 1)', ["123"]],
    ['"baaac".findAll("a*")', ["", "aaa", ""]],
  ];
  for (const [expr, expected] of cases)
    it(`${expr} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(evaluate(expr), expected);
    });

  it("a dynamic pattern RE2 rejects is an evaluation error", () => {
    assert.throws(
      () => evaluate("s.matches(p)", { s: "ab", p: "a(?=b)" }),
      (e: unknown) => e instanceof ExprEvaluationError && /invalid regex/.test(e.message),
    );
    assert.throws(() => evaluate("s.find(p)", { s: "ab", p: "(a)\\1" }), ExprEvaluationError);
  });
  it("a literal pattern RE2 rejects is a compile error with the field path", () => {
    for (const expr of ['s.matches("a(?=b)")', 's.find("(a")', 's.findAll("(a)\\\\1", 2)']) {
      const result = checkExpression(env, expr, { s: { type: "string" } }, { path: ["spec", "x"] });
      const issue = result.issues.find((i) => i.code === CHECK_CODES.regex);
      assert.ok(issue, `${expr}: ${JSON.stringify(result.issues)}`);
      assert.deepEqual(issue.path, ["spec", "x"]);
    }
    assert.deepEqual(checkExpression(env, 's.matches("^[a-z]+$")', { s: { type: "string" } }).issues, []);
  });
});
