import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DataPendingError, ExprEvaluationError } from "../../expr/index.js";
import { failure, missingPathOf } from "./classify.js";

describe("missingPathOf: the member chain up to the failed read", () => {
  const cases: [string, string, string | undefined][] = [
    ["svc.status.loadBalancer.ingress[0].ip", "loadBalancer", "svc.status.loadBalancer"],
    ['"http://" + svc.status.?lb.orValue("")', "svc", "svc"],
    ["a.b[0].c + 1", "b[0]", "a.b[0]"],
  ];
  for (const [expression, failed, expected] of cases) {
    it(`${expression} → ${String(expected)}`, () => {
      const end = expression.indexOf(failed) + failed.length;
      assert.equal(missingPathOf(expression, end), expected);
    });
  }
  it("no range, no path", () => {
    assert.equal(missingPathOf("a.b", undefined), undefined);
  });
});

describe("failure: pending versus error", () => {
  it("a data-pending error waits and names the path", () => {
    const outcome = failure(
      new DataPendingError("No such key: x", { expression: "svc.spec.x", range: { start: 9, end: 10 } }),
      "spec.resources[1].template.data.a",
    );
    assert.equal(outcome.ok, false);
    assert.deepEqual(outcome.pending, {
      kind: "data-pending",
      message: "spec.resources[1].template.data.a: waiting for svc.spec.x (No such key: x)",
      expression: "svc.spec.x",
      missingPath: "svc.spec.x",
    });
  });
  it("anything else is an error with the location and the expression", () => {
    const outcome = failure(new ExprEvaluationError("no such overload", { expression: "int(x)" }), "here");
    assert.deepEqual(outcome, { ok: false, error: 'here: expression "int(x)": no such overload' });
  });
});
