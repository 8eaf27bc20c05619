import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileExpression } from "./compile.js";
import { CostBudget } from "./cost.js";
import { createKroCelEnvironment } from "./environment.js";
import {
  CostLimitError,
  DataPendingError,
  ExprEvaluationError,
  ExprParseError,
  ResultConversionError,
  isCostLimitExceeded,
  isDataPending,
} from "./errors.js";
import { extractExpressions } from "./extract.js";
import { compileField } from "./template.js";
import { celToJson, jsonToCel } from "./values.js";

const env = createKroCelEnvironment();
const evaluate = (expr: string, vars: Record<string, unknown> = {}): unknown =>
  compileExpression(env, expr).evaluate(vars);
const observed = { deploy: { status: { replicas: 2n, conditions: [] }, spec: {} } };

describe("data pending vs real errors (§4.6)", () => {
  const pending = [
    "deploy.status.availableReplicas",
    'deploy.metadata["x"]',
    "deploy.status.conditions[0]",
    "service.spec",
    "deploy.status.missing.x + 1",
  ];
  for (const expr of pending) {
    it(`${expr} is pending`, () => {
      assert.throws(
        () => evaluate(expr, observed),
        (e: unknown) => isDataPending(e) && e instanceof DataPendingError,
      );
    });
  }
  const real = [
    "1 / 0",
    'int("abc")',
    'deploy.status.replicas + "x"',
    "deploy.status.replicas > 1.5 && 1 / 0 == 1",
    'dyn("a") + 1',
  ];
  for (const expr of real) {
    it(`${expr} is a real error`, () => {
      assert.throws(
        () => evaluate(expr, observed),
        (e: unknown) => e instanceof ExprEvaluationError && !isDataPending(e),
      );
    });
  }
  it("has() and optionals do not make data pending", () => {
    assert.equal(evaluate("has(deploy.status.availableReplicas)", observed), false);
    assert.equal(evaluate("deploy.status.?availableReplicas.orValue(0)", observed), 0n);
  });
  it("parse errors are ExprParseError", () => {
    assert.throws(() => compileExpression(env, "1 +"), ExprParseError);
  });
});

describe("result conversion", () => {
  const cases: [string, unknown][] = [
    ["1 + 2", 3],
    ["2.5", 2.5],
    ['{"a": [1, null]}', { a: [1, null] }],
    ["optional.none()", null],
    ['timestamp("2024-01-02T03:04:05Z")', "2024-01-02T03:04:05Z"],
  ];
  for (const [expr, expected] of cases) {
    it(`${expr} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(compileExpression(env, expr).evaluateJson({}), { omitted: false, value: expected });
    });
  }
  for (const expr of ["1u", 'b"x"', "0.0 / 0.0"]) {
    it(`${expr} cannot be written to JSON`, () => {
      assert.throws(() => compileExpression(env, expr).evaluateJson({}), ResultConversionError);
    });
  }
  it("JSON numbers become ints by schema and back", () => {
    const schema = {
      type: "object",
      properties: { n: { type: "number" }, i: { type: "integer" }, b: { type: "string", format: "byte" } },
    };
    const v = jsonToCel({ n: 1, i: 2, b: "aGk=", free: 3 }, schema) as Record<string, unknown>;
    assert.equal(v.n, 1);
    assert.equal(v.i, 2n);
    assert.equal(v.free, 3n);
    assert.deepEqual(v.b, new Uint8Array([104, 105]));
    assert.equal(compileExpression(env, "string(x.b) + string(x.i + 1)").evaluate({ x: v }), "hi3");
    assert.deepEqual(celToJson({ big: 2n ** 62n }).text, `{"big":${2n ** 62n}}`);
  });
  it("converted values share every part of the JSON that needs no conversion", () => {
    // The runtime keeps one converted copy per cached object: the unchanged parts are not copied.
    const labels = { app: "web", tier: "db" };
    const ports = [{ name: "http", protocol: "TCP" }];
    const object = {
      metadata: { name: "x", generation: 2, labels },
      spec: { ports, selector: { app: "web" } },
      list: ["a", "b"],
    };
    const v = jsonToCel(object) as {
      metadata: { generation: unknown; labels: unknown };
      spec: { ports: unknown };
      list: unknown;
    };
    assert.notEqual(v, object, "a number inside: the path to it is copied");
    assert.equal(v.metadata.generation, 2n);
    assert.equal(object.metadata.generation, 2, "the JSON is not changed");
    assert.equal(v.metadata.labels, labels);
    assert.equal(v.spec, object.spec);
    assert.equal(v.spec.ports, ports);
    assert.equal(v.list, object.list);
    const hostile = JSON.parse('{"__proto__": {"n": 1}, "m": 2}') as object;
    assert.deepEqual(Object.keys(jsonToCel(hostile) as object), ["__proto__", "m"], "a __proto__ key stays a key");
    assert.equal(Object.getPrototypeOf(jsonToCel(hostile)), Object.prototype);
  });
});

describe("templates", () => {
  const field = (text: string) => compileField(env, text, extractExpressions(text).segments);
  it("standalone keeps the type, templates concatenate strings", () => {
    assert.deepEqual(field("${n + 1}").evaluate({ n: 1n }), { omitted: false, value: 2 });
    assert.deepEqual(field("app-${name}-${kind}").evaluate({ name: "web", kind: "svc" }), {
      omitted: false,
      value: "app-web-svc",
    });
    assert.deepEqual(field('${"${HOME}"}').evaluate({}), { omitted: false, value: "${HOME}" });
  });
  it("a non-string fragment in a template is an error naming the template", () => {
    assert.throws(() => field("replicas-${n}").evaluate({ n: 1n }), /replicas-\$\{n\}/);
  });
});

describe("cost limits", () => {
  it("a huge comprehension hits the per-call limit instead of running on", () => {
    const e = compileExpression(env, "lists.range(100000).map(x, lists.range(100000).map(y, x * y))");
    assert.throws(
      () => e.evaluate({}),
      (err: unknown) => isCostLimitExceeded(err) && err instanceof CostLimitError,
    );
  });
  it("the per-call limit is an option", () => {
    const e = compileExpression(env, "[1, 2, 3].map(x, x * 2)");
    assert.throws(() => e.evaluate({}, { perCallLimit: 5 }), CostLimitError);
    assert.deepEqual(e.evaluate({}, { perCallLimit: 1000 }), [2n, 4n, 6n]);
  });
  it("a shared budget is consumed across evaluations", () => {
    const budget = new CostBudget(60);
    const e = compileExpression(env, "[1, 2, 3, 4, 5].map(x, x + 1)");
    e.evaluate({}, { budget });
    assert.ok(budget.used > 0);
    assert.throws(() => {
      for (let i = 0; i < 10; i++) e.evaluate({}, { budget });
    }, CostLimitError);
  });
  it("a cost error swallowed by || still fails", () => {
    const e = compileExpression(env, "[1, 2, 3].exists(x, x > 100) || true");
    assert.throws(() => e.evaluate({}, { perCallLimit: 4 }), CostLimitError);
  });
  it("library functions charge before allocating", () => {
    assert.throws(() => evaluate("lists.range(100000000).size()"), CostLimitError);
  });
});
