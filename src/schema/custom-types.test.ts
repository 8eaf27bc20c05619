import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveCustomTypes } from "./custom-types.js";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import { parseSimpleSchema } from "./simple-schema.js";

describe("custom types", () => {
  it("builds aliases and structs in dependency order and inlines them (no $ref)", () => {
    const { registry, issues } = resolveCustomTypes({
      Team: { lead: "Person | required=true", members: "[]Person" },
      Person: { name: "string | required=true", email: "Email" },
      Email: 'string | pattern="^[^@]+@[^@]+$"',
    });
    assert.deepEqual(issues, []);
    assert.deepEqual(registry.names, ["Email", "Person", "Team"]);
    const person = {
      type: "object",
      properties: { email: { type: "string", pattern: "^[^@]+@[^@]+$" }, name: { type: "string" } },
      required: ["name"],
    };
    assert.deepEqual(registry.get("Person")?.schema, person);
    assert.deepEqual(registry.get("Team")?.schema, {
      type: "object",
      properties: { lead: person, members: { type: "array", items: person } },
      required: ["lead"],
    });
  });

  it("copies custom schemas so a marker on one field does not leak into another", () => {
    const result = parseSimpleSchema({ a: "Name | description=first", b: "Name" }, { types: { Name: "string" } });
    assert.deepEqual(result.schema?.properties, { a: { type: "string", description: "first" }, b: { type: "string" } });
  });

  it("an alias with required=true makes fields of that type required, but not array items", () => {
    const result = parseSimpleSchema(
      { id: "Id", ids: "[]Id", other: "string" },
      { types: { Id: "string | required=true minLength=3" } },
    );
    assert.deepEqual(result.schema?.required, ["id"]);
    assert.deepEqual(result.schema.properties?.id, { type: "string", minLength: 3 });
  });

  it("an alias default is inherited and propagates default: {} to the parent", () => {
    const result = parseSimpleSchema({ box: { port: "Port" } }, { types: { Port: "integer | default=8080" } });
    assert.deepEqual(result.schema?.properties?.box, {
      type: "object",
      default: {},
      properties: { port: { type: "integer", default: 8080 } },
    });
  });

  it("reports each type of a cycle once, and no cascade of unknown types", () => {
    const result = parseSimpleSchema(
      { a: "A", c: "C" },
      { types: { A: { b: "B" }, B: "[]A", C: "map[string]C", D: "A" } },
    );
    assert.deepEqual(result.schema, undefined);
    assert.deepEqual(
      result.issues.map((i) => [i.code, i.path.join("."), i.message]),
      [
        [SCHEMA_ISSUE_CODES.typeCycle, "spec.schema.types.A", "cyclic dependency in type A"],
        [SCHEMA_ISSUE_CODES.typeCycle, "spec.schema.types.B", "cyclic dependency in type B"],
        [SCHEMA_ISSUE_CODES.typeCycle, "spec.schema.types.C", "cyclic dependency in type C"],
      ],
    );
  });

  it("reports unknown types, bad values and shadowed built-ins at their paths", () => {
    const result = resolveCustomTypes({ A: "Nope", B: 3, string: "integer", C: { x: ["no"] } }, ["types"]);
    assert.deepEqual(
      result.issues.map((i) => [i.code, i.path.join(".")]),
      [
        [SCHEMA_ISSUE_CODES.typeShadowsBuiltin, "types.string"],
        [SCHEMA_ISSUE_CODES.unknownType, "types.A"],
        [SCHEMA_ISSUE_CODES.unexpectedValue, "types.B"],
        [SCHEMA_ISSUE_CODES.unexpectedValue, "types.C.x"],
      ],
    );
    assert.deepEqual(result.registry.names, []);
  });

  it("rejects a types section that is not a mapping", () => {
    assert.equal(resolveCustomTypes(["A"]).issues[0]?.code, SCHEMA_ISSUE_CODES.unexpectedValue);
    assert.deepEqual(resolveCustomTypes(undefined).issues, []);
  });

  it("accepts a pre-resolved registry", () => {
    const { registry } = resolveCustomTypes({ Name: "string | minLength=1" });
    assert.deepEqual(parseSimpleSchema({ n: "Name" }, { types: registry }).schema?.properties?.n, {
      type: "string",
      minLength: 1,
    });
  });
});
