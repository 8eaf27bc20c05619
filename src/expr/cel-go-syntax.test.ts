// cel-go syntax and semantics our parse path adds on top of cel-js (syntax-desugar.ts,
// ast-rewrites.ts), seen from the places kro uses them: the typed checker (status schemas,
// template fields) and evaluation. The conformance ratchet covers evaluation of literals; these
// cover typed variables, error offsets and the checks that must stay compile errors.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TypedScope } from "./check.js";
import { compileExpression } from "./compile.js";
import { createKroCelEnvironment } from "./environment.js";
import type { OpenApiSchema } from "./openapi-schema.js";

const env = createKroCelEnvironment();
const schema: OpenApiSchema = {
  type: "object",
  properties: {
    metadata: { type: "object", properties: { labels: { type: "object", additionalProperties: { type: "string" } } } },
    spec: {
      type: "object",
      properties: { name: { type: "string" }, port: { type: "number" }, when: { type: "string", format: "date-time" } },
    },
  },
};
const scope = new TypedScope(env, { schema });
const evaluate = (expr: string, vars: Record<string, unknown> = {}): unknown =>
  compileExpression(env, expr).evaluate(vars);
const data = { metadata: { labels: { "app.kubernetes.io/name": "web" } }, spec: { name: "n", port: 80 } };

describe("cel-go syntax cel-js lacks", () => {
  it("backtick-quoted field names type-check and evaluate (label keys with dots and slashes)", () => {
    const r = scope.check("schema.metadata.labels.`app.kubernetes.io/name`", { estimateCost: false });
    assert.deepEqual(r.issues, []);
    assert.equal(r.type, "string");
    assert.equal(evaluate("schema.metadata.labels.`app.kubernetes.io/name`", { schema: data }), "web");
    assert.equal(evaluate("has(schema.metadata.labels.`app.kubernetes.io/name`)", { schema: data }), true);
    assert.equal(evaluate("has(schema.metadata.labels.`app.kubernetes.io/part-of`)", { schema: data }), false);
  });

  it("optional list and map entries are typed by the optional's value type and drop absent values", () => {
    assert.equal(scope.check("[?schema.spec.?name, 'x']", { estimateCost: false }).type, "list<string>");
    assert.equal(scope.check("{?'n': schema.spec.?name}", { estimateCost: false }).type, "map<string, string>");
    assert.deepEqual(evaluate("[?schema.spec.?missing, ?schema.spec.?name]", { schema: data }), ["n"]);
    assert.deepEqual(evaluate("{?'a': schema.spec.?missing, 'b': 1}", { schema: data }), { b: 1n });
    const r = scope.check("[?schema.spec.name]", { estimateCost: false });
    assert.match(r.issues.map((i) => i.message).join("\n"), /must be optional/);
  });

  it("an optional index stays an index, and a ternary is not an optional entry", () => {
    assert.equal(evaluate("[1, 2][?5].orValue(0)"), 0n);
    assert.deepEqual(evaluate("[true ? 1 : 2, false ? 3 : 4]"), [1n, 4n]);
  });

  it("rewrites keep error offsets: the error in `[?x, 1 +]` points where the author wrote it", () => {
    const source = "[?optional.none(), 1 +]";
    assert.throws(
      () => compileExpression(env, source),
      (e: { range?: { start: number } }) => e.range?.start === source.indexOf("]"),
    );
  });
});

describe("cel-go semantics cel-js lacks", () => {
  it("has() takes any operand and reads through optionals", () => {
    assert.equal(evaluate("has({'a': 1}.a)"), true);
    assert.equal(evaluate("has(optional.of({'a': 1}).a)"), true);
    assert.equal(evaluate("has(optional.of({'a': 1}).b)"), false);
    assert.equal(evaluate("has({'a': optional.none()}.a)"), true);
  });

  it("repeated or double literal map keys are errors, at check time in the typed checker", () => {
    assert.throws(() => evaluate("{'a': 1, 'a': 2}"), /repeated key/);
    assert.throws(() => evaluate("{1: 1, 1u: 2}"), /repeated key/);
    assert.notDeepEqual(scope.check("{1.5: 'x'}", { estimateCost: false }).issues, []);
    assert.deepEqual(evaluate("{'a': 1, 'b': 2}"), { a: 1n, b: 2n });
  });

  it("time zones accept fixed offsets", () => {
    assert.equal(evaluate("timestamp('2009-02-13T23:31:30Z').getHours('+02:00')"), 1n);
    assert.equal(evaluate("timestamp('2009-02-13T23:31:30Z').getHours('-02:30')"), 21n);
    assert.equal(evaluate("timestamp('2009-02-13T23:31:30Z').getHours('Europe/Paris')"), 0n);
    assert.throws(() => evaluate("timestamp('2009-02-13T23:31:30Z').getHours('Mars/Olympus')"), /time zone/);
  });

  it("ints, timestamps and durations out of range are errors, not silent big values", () => {
    assert.throws(() => evaluate("int(1e99)"), /overflow/);
    assert.throws(() => evaluate("-(-9223372036854775808)"), /overflow/);
    assert.throws(() => evaluate("timestamp('9999-12-31T23:59:59Z') + duration('1s')"), /out of range/);
    assert.throws(() => evaluate("duration('320000000000s')"), /out of range/);
    assert.equal(evaluate("9223372036854775806 + 1"), 9223372036854775807n);
  });

  it("a number field compares with int literals in a list by value", () => {
    assert.equal(evaluate("dyn(schema.spec.port) in [80, 443]", { schema: data }), true);
    assert.equal(evaluate("dyn(schema.spec.port) in [81, 443]", { schema: data }), false);
  });

  it("duration + timestamp is a timestamp to the checker", () => {
    assert.equal(
      scope.check("duration('1h') + schema.spec.when", { estimateCost: false }).type,
      "google.protobuf.Timestamp",
    );
  });

  it("lowerAscii, upperAscii and trim follow cel-go (ASCII letters, Go's spaces)", () => {
    assert.equal(evaluate("'ÄbC'.lowerAscii()"), "Äbc");
    assert.equal(evaluate("'\\u00a0x\\ufeff'.trim()"), "x\ufeff");
  });

  it("string methods count code points, and a type error names the method the author wrote", () => {
    assert.equal(evaluate("'😀ateam-a'.substring(2)"), "team-a");
    const r = scope.check("schema.spec.name.substring('2')", { estimateCost: false });
    const messages = r.issues.map((i) => i.message).join("\n");
    assert.match(messages, /string\.substring\(string\)/);
    assert.doesNotMatch(messages, /kro/);
  });
});
