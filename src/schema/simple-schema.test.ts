import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import { parseSimpleSchema } from "./simple-schema.js";

describe("parseSimpleSchema", () => {
  it("produces the CRD spec schema of the reference's worked example (§2.7)", () => {
    const result = parseSimpleSchema({
      name: "string | required=true",
      replicas: "integer | default=2 minimum=1",
      regions: "[]string | default=[]",
      ingress: { enabled: "boolean | default=false" },
    });
    assert.deepEqual(result.issues, []);
    assert.deepEqual(result.schema, {
      type: "object",
      properties: {
        ingress: { type: "object", default: {}, properties: { enabled: { type: "boolean", default: false } } },
        name: { type: "string" },
        regions: { type: "array", default: [], items: { type: "string" } },
        replicas: { type: "integer", default: 2, minimum: 1 },
      },
      required: ["name"],
    });
  });

  it("propagates default: {} up through nested objects, but not past required children", () => {
    const result = parseSimpleSchema({
      outer: { inner: { leaf: "string | default=x" } },
      strict: { need: "string | required=true", leaf: "string | default=y" },
      plain: { leaf: "string" },
    });
    const props = result.schema?.properties ?? {};
    assert.deepEqual(props.outer?.default, {});
    assert.deepEqual(props.outer.properties?.inner?.default, {});
    assert.equal(props.strict?.default, undefined);
    assert.deepEqual(props.strict?.required, ["need"]);
    assert.equal(props.plain?.default, undefined);
    assert.deepEqual(result.schema?.default, {}, "the spec root follows the same rule");
  });

  it("sorts required names and emits keys in a stable order regardless of input order", () => {
    const a = parseSimpleSchema({
      zeta: "string | required=true",
      alpha: "integer | maximum=3 required=true minimum=1",
      mid: { y: "string", x: "string" },
    });
    const b = parseSimpleSchema({
      mid: { x: "string", y: "string" },
      alpha: "integer | required=true minimum=1 maximum=3",
      zeta: "string | required=true",
    });
    assert.deepEqual(a.schema?.required, ["alpha", "zeta"]);
    assert.equal(JSON.stringify(a.schema), JSON.stringify(b.schema));
    assert.deepEqual(Object.keys(a.schema.properties ?? {}), ["alpha", "mid", "zeta"]);
  });

  it("maps every type form", () => {
    const result = parseSimpleSchema({
      s: "string",
      i: "integer",
      b: "boolean",
      f: "float",
      o: "object",
      arr: "[][]integer",
      m: "map[string][]string",
      nested: { deeper: { x: "float" } },
    });
    assert.deepEqual(result.schema?.properties, {
      arr: { type: "array", items: { type: "array", items: { type: "integer" } } },
      b: { type: "boolean" },
      f: { type: "number" },
      i: { type: "integer" },
      m: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
      nested: { type: "object", properties: { deeper: { type: "object", properties: { x: { type: "number" } } } } },
      o: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
      s: { type: "string" },
    });
  });

  it("reports every problem with its path and returns no schema", () => {
    const result = parseSimpleSchema({
      replicas: "integer | nope=1",
      kind: "number",
      nested: { list: ["string"], count: 3, flag: true, empty: null },
      map: "map[int]string",
    });
    assert.equal(result.schema, undefined);
    assert.deepEqual(
      result.issues.map((i) => [i.code, i.path.join(".")]),
      [
        [SCHEMA_ISSUE_CODES.unknownType, "spec.schema.spec.kind"],
        [SCHEMA_ISSUE_CODES.mapKeyNotString, "spec.schema.spec.map"],
        [SCHEMA_ISSUE_CODES.unexpectedValue, "spec.schema.spec.nested.count"],
        [SCHEMA_ISSUE_CODES.unexpectedValue, "spec.schema.spec.nested.empty"],
        [SCHEMA_ISSUE_CODES.unexpectedValue, "spec.schema.spec.nested.flag"],
        [SCHEMA_ISSUE_CODES.unexpectedValue, "spec.schema.spec.nested.list"],
        [SCHEMA_ISSUE_CODES.unknownMarker, "spec.schema.spec.replicas"],
      ],
    );
    assert.match(result.issues[0]?.message ?? "", /^unknown type: number$/);
  });

  it("uses the caller's paths", () => {
    const result = parseSimpleSchema({ a: "Missing" }, { path: ["x"], types: { B: 1 }, typesPath: ["y"] });
    assert.deepEqual(
      result.issues.map((i) => i.path),
      [
        ["y", "B"],
        ["x", "a"],
      ],
    );
  });

  it("treats a missing spec as an empty object and a non-mapping spec as an error", () => {
    assert.deepEqual(parseSimpleSchema(undefined).schema, { type: "object" });
    assert.deepEqual(parseSimpleSchema(null).schema, { type: "object" });
    assert.deepEqual(parseSimpleSchema({}).schema, { type: "object" });
    const bad = parseSimpleSchema("string");
    assert.equal(bad.schema, undefined);
    assert.deepEqual(
      bad.issues.map((i) => i.path),
      [["spec", "schema", "spec"]],
    );
  });

  it("keeps a field called __proto__ as a field", () => {
    const spec = JSON.parse('{"__proto__": "string | required=true"}') as unknown;
    const result = parseSimpleSchema(spec);
    assert.deepEqual(Object.keys(result.schema?.properties ?? {}), ["__proto__"]);
    assert.deepEqual(result.schema?.required, ["__proto__"]);
  });

  it("bounds object nesting instead of overflowing the stack", () => {
    let deep: Record<string, unknown> = { leaf: "string" };
    for (let i = 0; i < 5000; i++) deep = { n: deep };
    const result = parseSimpleSchema(deep);
    assert.equal(result.schema, undefined);
    assert.deepEqual(
      result.issues.map((i) => i.code),
      [SCHEMA_ISSUE_CODES.nestingTooDeep],
    );
  });
});
