// Status-field schemas from CEL types: what kro (cel-go) emits, also where cel-js leaves `dyn` unspelled.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { statusSchemaForCelType } from "./cel-type-schema.js";

const PRESERVE = { "x-kubernetes-preserve-unknown-fields": true };

describe("status schemas from CEL types", () => {
  it("a list of dyn keeps its items (the API server rejects an array without items)", () => {
    assert.deepEqual(statusSchemaForCelType("list"), { type: "array", items: PRESERVE });
    assert.deepEqual(statusSchemaForCelType("list<dyn>"), { type: "array", items: PRESERVE });
    assert.deepEqual(statusSchemaForCelType("list<list>"), {
      type: "array",
      items: { type: "array", items: PRESERVE },
    });
  });
  it("a map of dyn preserves its values", () => {
    assert.deepEqual(statusSchemaForCelType("map"), { type: "object", additionalProperties: PRESERVE });
    assert.deepEqual(statusSchemaForCelType("map<string, dyn>"), { type: "object", additionalProperties: PRESERVE });
    assert.deepEqual(statusSchemaForCelType("map<string, int>"), {
      type: "object",
      additionalProperties: { type: "integer" },
    });
  });
});
