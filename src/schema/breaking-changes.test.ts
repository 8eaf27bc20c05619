import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyCrdUpdate, SCHEMA_CHANGE_KINDS, summarizeChanges, type CrdSchemaSource } from "./breaking-changes.js";
import type { JSONSchemaProps } from "./openapi-types.js";
import { parseSimpleSchema } from "./simple-schema.js";

function crdOf(spec: Record<string, unknown>, version = "v1alpha1"): CrdSchemaSource {
  const schema = parseSimpleSchema(spec).schema;
  assert.ok(schema, JSON.stringify(spec));
  const root: JSONSchemaProps = { type: "object", properties: { spec: schema } };
  return { spec: { versions: [{ name: version, schema: { openAPIV3Schema: root } }] } };
}

// `id` stays required in every variant, so `spec` itself never gains `default: {}`.
const BASE = {
  id: "string | required=true",
  name: "string | required=true",
  image: "string",
  replicas: "integer | default=2 minimum=1 maximum=10",
  mode: 'string | enum="a,b"',
  tags: "[]string | maxItems=5",
  host: 'string | pattern="^[a-z]+$" minLength=1',
  ports: "[]integer",
  labels: "map[string]string",
};

describe("CRD breaking-change classification", () => {
  const cases: [string, Record<string, unknown>, string, boolean][] = [
    ["property removed", { ...BASE, image: undefined }, SCHEMA_CHANGE_KINDS.propertyRemoved, true],
    ["type changed", { ...BASE, image: "integer" }, SCHEMA_CHANGE_KINDS.typeChanged, true],
    ["item type changed", { ...BASE, ports: "[]string" }, SCHEMA_CHANGE_KINDS.typeChanged, true],
    ["map value type changed", { ...BASE, labels: "map[string]integer" }, SCHEMA_CHANGE_KINDS.typeChanged, true],
    ["required added", { ...BASE, image: "string | required=true" }, SCHEMA_CHANGE_KINDS.requiredAdded, true],
    ["enum restricted", { ...BASE, mode: 'string | enum="a"' }, SCHEMA_CHANGE_KINDS.enumRestricted, true],
    ["enum added", { ...BASE, image: 'string | enum="x"' }, SCHEMA_CHANGE_KINDS.enumRestricted, true],
    ["pattern added", { ...BASE, image: 'string | pattern="^x"' }, SCHEMA_CHANGE_KINDS.patternChanged, true],
    [
      "pattern changed",
      { ...BASE, host: 'string | pattern="^[a-z0-9]+$" minLength=1' },
      SCHEMA_CHANGE_KINDS.patternChanged,
      true,
    ],
    [
      "minimum increased",
      { ...BASE, replicas: "integer | default=2 minimum=2 maximum=10" },
      SCHEMA_CHANGE_KINDS.constraintTightened,
      true,
    ],
    [
      "maximum decreased",
      { ...BASE, replicas: "integer | default=2 minimum=1 maximum=5" },
      SCHEMA_CHANGE_KINDS.constraintTightened,
      true,
    ],
    [
      "minLength increased",
      { ...BASE, host: 'string | pattern="^[a-z]+$" minLength=2' },
      SCHEMA_CHANGE_KINDS.constraintTightened,
      true,
    ],
    ["maxLength added", { ...BASE, image: "string | maxLength=9" }, SCHEMA_CHANGE_KINDS.constraintTightened, true],
    ["minItems added", { ...BASE, ports: "[]integer | minItems=1" }, SCHEMA_CHANGE_KINDS.constraintTightened, true],
    ["maxItems decreased", { ...BASE, tags: "[]string | maxItems=4" }, SCHEMA_CHANGE_KINDS.constraintTightened, true],
    ["property added", { ...BASE, extra: "string" }, SCHEMA_CHANGE_KINDS.propertyAdded, false],
    [
      "description changed",
      { ...BASE, image: "string | description=img" },
      SCHEMA_CHANGE_KINDS.descriptionChanged,
      false,
    ],
    [
      "default changed",
      { ...BASE, replicas: "integer | default=3 minimum=1 maximum=10" },
      SCHEMA_CHANGE_KINDS.defaultChanged,
      false,
    ],
    ["required removed", { ...BASE, name: "string" }, SCHEMA_CHANGE_KINDS.requiredRemoved, false],
    ["enum expanded", { ...BASE, mode: 'string | enum="a,b,c"' }, SCHEMA_CHANGE_KINDS.enumExpanded, false],
    ["enum removed", { ...BASE, mode: "string" }, SCHEMA_CHANGE_KINDS.enumExpanded, false],
    ["pattern removed", { ...BASE, host: "string | minLength=1" }, SCHEMA_CHANGE_KINDS.patternRemoved, false],
    [
      "maximum raised",
      { ...BASE, replicas: "integer | default=2 minimum=1 maximum=20" },
      SCHEMA_CHANGE_KINDS.constraintRelaxed,
      false,
    ],
    [
      "minimum removed",
      { ...BASE, replicas: "integer | default=2 maximum=10" },
      SCHEMA_CHANGE_KINDS.constraintRelaxed,
      false,
    ],
    ["maxItems removed", { ...BASE, tags: "[]string" }, SCHEMA_CHANGE_KINDS.constraintRelaxed, false],
  ];
  for (const [name, spec, kind, breaking] of cases) {
    it(`${name}: ${kind} (${breaking ? "breaking" : "compatible"})`, () => {
      const defined = Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined));
      const result = classifyCrdUpdate(crdOf(BASE), crdOf(defined));
      const all = [...result.breaking, ...result.nonBreaking];
      assert.equal(all.length, 1, JSON.stringify(all));
      assert.equal(all[0]?.kind, kind);
      assert.equal(all[0].breaking, breaking);
      assert.equal(result.breaking.length, breaking ? 1 : 0);
      assert.ok(all[0].description.startsWith("spec."), all[0].description);
    });
  }

  it("finds no change between identical schemas", () => {
    assert.deepEqual(classifyCrdUpdate(crdOf(BASE), crdOf({ ...BASE })), { breaking: [], nonBreaking: [] });
  });

  it("treats removing the default of a required field as breaking", () => {
    const before = crdOf({ size: "integer | required=true default=1" });
    const after = crdOf({ size: "integer | required=true" });
    assert.deepEqual(
      classifyCrdUpdate(before, after).breaking.map((c) => c.kind),
      [SCHEMA_CHANGE_KINDS.requiredDefaultRemoved],
    );
  });

  it("does not flag required fields inside a new property", () => {
    const result = classifyCrdUpdate(crdOf(BASE), crdOf({ ...BASE, db: { host: "string | required=true" } }));
    assert.deepEqual(result.breaking, []);
    assert.deepEqual(
      result.nonBreaking.map((c) => c.path),
      [["spec", "db"]],
    );
  });

  it("reports a removed version, and summarises the first three breaking changes", () => {
    const result = classifyCrdUpdate(crdOf(BASE), crdOf(BASE, "v1"));
    assert.deepEqual(
      result.breaking.map((c) => c.description),
      ["version v1alpha1 removed"],
    );
    assert.deepEqual(
      result.nonBreaking.map((c) => c.kind),
      [SCHEMA_CHANGE_KINDS.versionAdded],
    );
    const many = classifyCrdUpdate(crdOf(BASE), crdOf({ name: "integer", ports: "[]string" }));
    assert.equal(
      summarizeChanges(many.breaking),
      "spec.host: property removed; spec.id: property removed; spec.image: property removed (and 6 more)",
    );
  });
});
