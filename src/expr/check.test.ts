import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TypedScope, checkExpression } from "./check.js";
import { createKroCelEnvironment } from "./environment.js";
import type { OpenApiSchema } from "./openapi-schema.js";

const env = createKroCelEnvironment();
const spec: OpenApiSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        name: { type: "string" },
        replicas: { type: "integer" },
        ratio: { type: "number" },
        labels: { type: "object", additionalProperties: { type: "string" } },
        ports: { type: "array", items: { type: "object", properties: { port: { type: "integer" } } } },
        bounded: { type: "array", maxItems: 5, items: { type: "string" } },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        intOrString: { "x-kubernetes-int-or-string": true },
      },
    },
  },
};
const scope = new TypedScope(env, { schema: spec, items: { type: "array", items: { type: "string" } } });

describe("static type checking", () => {
  const types: [string, string, OpenApiSchema][] = [
    ["schema.spec.replicas + 1", "int", { type: "integer", format: "int64" }],
    ["schema.spec.name", "string", { type: "string" }],
    ["schema.spec.labels", "map<string, string>", { type: "object", additionalProperties: { type: "string" } }],
    ["schema.spec.ports.map(p, p.port)", "list<int>", { type: "array", items: { type: "integer", format: "int64" } }],
    ["schema.spec.free.anything.goes", "dyn", { "x-kubernetes-preserve-unknown-fields": true }],
    ["schema.spec.intOrString", "dyn", { "x-kubernetes-preserve-unknown-fields": true }],
    ["schema.spec.?name", "optional<string>", { type: "string" }],
    ["items.size() > 0", "bool", { type: "boolean" }],
  ];
  for (const [expr, type, schema] of types) {
    it(`${expr}: ${type}`, () => {
      const r = scope.check(expr, { estimateCost: false });
      assert.deepEqual(r.issues, []);
      assert.equal(r.type, type);
      assert.deepEqual(r.schema, schema);
    });
  }

  it("struct outputs map back to their OpenAPI schema", () => {
    assert.deepEqual(scope.check("schema.spec.ports[0]").schema, {
      type: "object",
      properties: { port: { type: "integer" } },
    });
  });

  const errors: [string, RegExp][] = [
    ["schema.spec.nope", /No such key: nope/],
    ['schema.spec.replicas + "x"', /no matching overload|not defined|no such overload/i],
    ["unknownVar", /unknown variable/i],
    ["unknownFn(1)", /overload|unknown/i],
    ["1 +", /parse|unexpected|expected/i],
  ];
  for (const [expr, message] of errors) {
    it(`${expr} is rejected`, () => {
      const r = checkExpression(env, expr, { schema: spec }, { path: ["spec", "x"] });
      assert.equal(r.type, undefined);
      const issue = r.issues[0];
      assert.ok(issue);
      assert.equal(issue.severity, "error");
      assert.deepEqual(issue.path, ["spec", "x"]);
      assert.match(issue.message, message);
      assert.match(issue.message, new RegExp(expr.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/"/g, '\\\\"')));
    });
  }

  it("names the expression, the actual and the expected type on a mismatch", () => {
    const r = scope.check("schema.spec.name", { expected: { type: "integer" }, path: ["spec", "replicas"] });
    assert.equal(r.issues.length, 1);
    assert.match(r.issues[0]?.message ?? "", /"schema.spec.name" returns type "string" but expected "int"/);
  });
  const compatible: [string, OpenApiSchema][] = [
    ["schema.spec.replicas", { type: "number" }],
    ["schema.spec.free", { type: "integer" }],
    ["schema.spec.replicas", { "x-kubernetes-int-or-string": true }],
    ['{"port": 80}', { type: "object", properties: { port: { type: "integer" }, name: { type: "string" } } }],
    ["schema.spec.ports[0]", { type: "object", properties: { port: { type: "integer" }, x: { type: "string" } } }],
  ];
  for (const [expr, expected] of compatible) {
    it(`${expr} is assignable to ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(scope.check(expr, { expected, estimateCost: false }).issues, []);
    });
  }
  it("struct subset: unknown output fields are rejected", () => {
    const r = scope.check("schema.spec.ports[0]", {
      expected: { type: "object", properties: { name: { type: "string" } } },
    });
    assert.match(r.issues[0]?.message ?? "", /unknown field/);
  });
});

describe("static cost estimate", () => {
  it("warns about comprehensions over unbounded lists only", () => {
    const unbounded = scope.check("schema.spec.ports.map(p, p.port)");
    const issue = unbounded.issues[0];
    assert.ok(issue);
    assert.equal(issue.code, "expr.cost-unbounded");
    assert.equal(issue.severity, "warning");
    assert.deepEqual(scope.check("schema.spec.bounded.map(s, s + 'x')").issues, []);
    assert.deepEqual(scope.check("[1, 2].map(x, x)").issues, []);
    assert.deepEqual(scope.check("lists.range(3).map(x, x)").issues, []);
  });
});

describe("derived scopes (TypedScope.with, preregister)", () => {
  const env = createKroCelEnvironment();
  const widget: OpenApiSchema = {
    type: "object",
    properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
  };
  const gadget: OpenApiSchema = {
    type: "object",
    properties: { spec: { type: "object", properties: { colour: { type: "string" } } } },
  };

  it("keeps the parent's variables and adds new ones", () => {
    const scope = new TypedScope(env, { w: widget }).with({ region: { type: "string" } });
    assert.equal(scope.check("w.spec.size").type, "int");
    assert.equal(scope.check("region + '-a'").type, "string");
  });

  it("does not leak variables between siblings or back to the parent", () => {
    const root = new TypedScope(env, {}).preregister([widget, gadget]);
    const a = root.with({ a: widget });
    root.with({ b: gadget });
    assert.deepEqual(
      a.check("b.spec.colour").issues.map((i) => i.code),
      ["expr.type-error"],
    );
    assert.deepEqual(
      root.check("a.spec.size").issues.map((i) => i.code),
      ["expr.type-error"],
    );
  });

  it("types two variables sharing one schema object, and forks of forks, correctly", () => {
    const root = new TypedScope(env, {});
    root.with({ x: widget });
    const second = root.with({ g: gadget });
    const third = second.with({ w1: widget, w2: widget });
    assert.equal(third.check("w1.spec.size + w2.spec.size").type, "int");
    assert.equal(third.check("g.spec.colour").type, "string");
    assert.match(third.check("w1.spec.colour").issues[0]?.message ?? "", /colour/);
  });
});
