// Property tests: whatever document a user writes, the parser answers with issues, never throws,
// and its answer is deterministic.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { lexMarkers } from "./marker-lexer.js";
import { MARKER_KEYS } from "./markers.js";
import { parseSimpleSchema } from "./simple-schema.js";
import { parseTypeExpression } from "./type-expression.js";

const typeName = fc.oneof(
  fc.constantFrom(
    "string",
    "integer",
    "boolean",
    "float",
    "object",
    "T",
    "U",
    "Missing",
    "[]string",
    "map[string]T",
    "map[int]x",
    "[]",
    "",
  ),
  fc.string({ maxLength: 12 }),
);
const markerValue = fc.oneof(
  fc.constantFrom(
    "true",
    "false",
    "1",
    "-2",
    "1.5",
    "[]",
    "{}",
    '"a b"',
    '"x,y"',
    "[1, 2",
    '"open',
    '{"a": [1]}',
    "^a+$",
    "(?=x)",
  ),
  fc.string({ maxLength: 10 }),
);
const marker = fc
  .tuple(fc.oneof(fc.constantFrom(...MARKER_KEYS), fc.string({ maxLength: 6 })), markerValue)
  .map(([k, v]) => `${k}=${v}`);
const typeString = fc.oneof(
  fc
    .tuple(typeName, fc.array(marker, { maxLength: 4 }))
    .map(([t, ms]) => (ms.length === 0 ? t : `${t} | ${ms.join(" ")}`)),
  fc.string({ maxLength: 40 }),
);
const fieldSpec = fc.letrec((tie) => ({
  field: fc.oneof({ depthSize: "small" }, typeString, typeString, tie("object"), fc.anything({ maxDepth: 2 })),
  object: fc.dictionary(
    fc.oneof(fc.constantFrom("a", "b", "__proto__", "constructor"), fc.string({ maxLength: 5 })),
    tie("field"),
    { maxKeys: 4 },
  ),
}));
const typesSection = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.constantFrom("T", "U", "V", "string"), fieldSpec.field, { maxKeys: 3 }),
  fc.anything({ maxDepth: 2 }),
);

describe("SimpleSchema parser properties", () => {
  it("never throws on arbitrary input and returns a schema exactly when there are no errors", () => {
    fc.assert(
      fc.property(fc.oneof(fieldSpec.object, fc.anything()), typesSection, (spec, types) => {
        const result = parseSimpleSchema(spec, { types });
        const hasErrors = result.issues.some((i) => i.severity === "error");
        assert.equal(result.schema === undefined, hasErrors);
        for (const issue of result.issues) {
          assert.ok(issue.message.length > 0);
          assert.ok(Array.isArray(issue.path));
        }
        if (result.schema !== undefined) assert.equal(result.schema.type, "object");
      }),
      { numRuns: 1500 },
    );
  });

  it("is deterministic: the same input gives byte-identical output", () => {
    fc.assert(
      fc.property(fieldSpec.object, typesSection, (spec, types) => {
        const a = parseSimpleSchema(spec, { types });
        const b = parseSimpleSchema(structuredClone(spec), { types: structuredClone(types) });
        assert.equal(JSON.stringify(a), JSON.stringify(b));
      }),
      { numRuns: 300 },
    );
  });

  it("the type and marker lexers never throw on any string", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const type = parseTypeExpression(text);
        assert.ok((type.type === undefined) !== (type.error === undefined));
        const markers = lexMarkers(text);
        assert.ok((markers.markers === undefined) !== (markers.error === undefined));
      }),
      { numRuns: 3000 },
    );
  });

  it("a quoted description round-trips any text without quotes issues", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        const escaped = text.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
        const result = parseSimpleSchema({ f: `string | description="${escaped}"` });
        assert.equal(result.schema?.properties?.f?.description, text);
      }),
      { numRuns: 500 },
    );
  });
});
