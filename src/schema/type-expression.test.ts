import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import { customTypeName, MAX_TYPE_NESTING, parseTypeExpression, type TypeExpression } from "./type-expression.js";

describe("parseTypeExpression", () => {
  const ok: [string, TypeExpression][] = [
    ["string", { kind: "atomic", name: "string" }],
    ["  integer ", { kind: "atomic", name: "integer" }],
    ["boolean", { kind: "atomic", name: "boolean" }],
    ["float", { kind: "atomic", name: "float" }],
    ["object", { kind: "object" }],
    ["[]string", { kind: "array", items: { kind: "atomic", name: "string" } }],
    ["map[string]integer", { kind: "map", values: { kind: "atomic", name: "integer" } }],
    [
      "[]map[string][]Person",
      { kind: "array", items: { kind: "map", values: { kind: "array", items: { kind: "custom", name: "Person" } } } },
    ],
    ["number", { kind: "custom", name: "number" }],
    ["array", { kind: "custom", name: "array" }],
  ];
  for (const [text, expected] of ok) {
    it(`parses ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parseTypeExpression(text).type, expected);
    });
  }

  const bad: [string, string, RegExp][] = [
    ["", SCHEMA_ISSUE_CODES.emptyType, /missing type/],
    ["map[int]string", SCHEMA_ISSUE_CODES.mapKeyNotString, /map key must be string/],
    ["map[string]", SCHEMA_ISSUE_CODES.missingElementType, /missing map value type/],
    ["[]", SCHEMA_ISSUE_CODES.missingElementType, /missing array element type/],
    ["map[string", SCHEMA_ISSUE_CODES.unknownType, /unclosed map key/],
    [`${"[]".repeat(MAX_TYPE_NESTING + 1)}string`, SCHEMA_ISSUE_CODES.nestingTooDeep, /deeper than 16/],
  ];
  for (const [text, code, message] of bad) {
    it(`rejects ${JSON.stringify(text.slice(0, 30))}`, () => {
      const result = parseTypeExpression(text);
      assert.equal(result.error?.code, code);
      assert.match(result.error.message, message);
    });
  }

  it("accepts exactly the maximum nesting", () => {
    assert.equal(parseTypeExpression(`${"[]".repeat(MAX_TYPE_NESTING)}string`).error, undefined);
  });

  it("finds the custom type behind arrays and maps", () => {
    const parsed = parseTypeExpression("[]map[string]Person").type;
    assert.ok(parsed);
    assert.equal(customTypeName(parsed), "Person");
    assert.equal(customTypeName({ kind: "array", items: { kind: "atomic", name: "string" } }), undefined);
  });
});
