// One row per marker behaviour and per marker error, through the public parser so the issue
// path and the emitted OpenAPI are what a user would see.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import type { JSONSchemaProps } from "./openapi-types.js";
import { parseSimpleSchema } from "./simple-schema.js";

const FIELD_PATH = ["spec", "schema", "spec", "f"];

function field(
  spec: string,
  types?: Record<string, unknown>,
): { schema: JSONSchemaProps | undefined; required: boolean } {
  const result = parseSimpleSchema({ f: spec }, types === undefined ? {} : { types });
  assert.deepEqual(
    result.issues.filter((i) => i.severity === "error"),
    [],
    `unexpected issues for ${spec}`,
  );
  return { schema: result.schema?.properties?.f, required: result.schema?.required?.includes("f") ?? false };
}

describe("markers: effects", () => {
  const cases: [string, JSONSchemaProps][] = [
    ["string | description=hello", { type: "string", description: "hello" }],
    ['string | description="two words"', { type: "string", description: "two words" }],
    ["string | default=abc", { type: "string", default: "abc" }],
    ['string | default="a b"', { type: "string", default: "a b" }],
    ["string | default=a\\nb", { type: "string", default: "a\nb" }],
    ["string | default=", { type: "string", default: "" }],
    ["integer | default=2", { type: "integer", default: 2 }],
    ["integer | default=-3", { type: "integer", default: -3 }],
    ["float | default=1.5", { type: "number", default: 1.5 }],
    ["float | default=2", { type: "number", default: 2 }],
    ["boolean | default=false", { type: "boolean", default: false }],
    ["boolean | default=T", { type: "boolean", default: true }],
    ["[]string | default=[]", { type: "array", items: { type: "string" }, default: [] }],
    ["[]integer | default=[80, 443]", { type: "array", items: { type: "integer" }, default: [80, 443] }],
    [
      'map[string]string | default={"a": "b"}',
      { type: "object", additionalProperties: { type: "string" }, default: { a: "b" } },
    ],
    ["object | default={}", { type: "object", "x-kubernetes-preserve-unknown-fields": true, default: {} }],
    ["integer | minimum=1 maximum=10", { type: "integer", minimum: 1, maximum: 10 }],
    ["float | minimum=0.5 maximum=1e2", { type: "number", minimum: 0.5, maximum: 100 }],
    ["string | minimum=1", { type: "string", minimum: 1 }], // kro does not check the field type
    ['string | enum="a, b ,c"', { type: "string", enum: ["a", "b", "c"] }],
    ['integer | enum="1,2,3"', { type: "integer", enum: [1, 2, 3] }],
    ['string | pattern="^[a-z]+$"', { type: "string", pattern: "^[a-z]+$" }],
    ["string | minLength=1 maxLength=63", { type: "string", minLength: 1, maxLength: 63 }],
    ["[]string | uniqueItems=true", { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" }],
    ["[]string | uniqueItems=false", { type: "array", items: { type: "string" } }],
    ["[]string | minItems=1 maxItems=5", { type: "array", items: { type: "string" }, minItems: 1, maxItems: 5 }],
    ["[]string | listType=atomic", { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "atomic" }],
    [
      "[]string | uniqueItems=true listType=set",
      { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" },
    ],
    [
      "[]object | listType=map listMapKey=name listMapKey=port",
      {
        type: "array",
        items: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name", "port"],
      },
    ],
    [
      "[]object | listMapKey=name listType=map",
      {
        type: "array",
        items: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
      },
    ],
    [
      "string | immutable=true",
      { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "field is immutable" }] },
    ],
    ["string | immutable=false", { type: "string" }],
    [
      'integer | validation="self % 2 == 0"',
      { type: "integer", "x-kubernetes-validations": [{ rule: "self % 2 == 0", message: "validation failed" }] },
    ],
    [
      'string | validation="self != \'x\'" immutable=true validation="size(self) < 5"',
      {
        type: "string",
        "x-kubernetes-validations": [
          { rule: "self != 'x'", message: "validation failed" },
          { rule: "self == oldSelf", message: "field is immutable" },
          { rule: "size(self) < 5", message: "validation failed" },
        ],
      },
    ],
  ];
  for (const [spec, expected] of cases) {
    it(spec, () => {
      assert.deepEqual(field(spec).schema, expected);
    });
  }

  const requiredCases: [string, boolean][] = [
    ["string | required=true", true],
    ["string | required=1", true],
    ["string | required=false", false],
    ["string", false],
  ];
  for (const [spec, required] of requiredCases) {
    it(`${spec} → required ${required}`, () => {
      assert.equal(field(spec).required, required);
    });
  }

  it("lets the last of a repeated marker win, with a warning", () => {
    const result = parseSimpleSchema({ f: "integer | default=1 default=2" });
    assert.equal(result.schema?.properties?.f?.default, 2);
    assert.deepEqual(
      result.issues.map((i) => [i.severity, i.code]),
      [["warning", SCHEMA_ISSUE_CODES.duplicateMarker]],
    );
  });

  it("enum and pattern apply through a custom alias of the right type", () => {
    assert.deepEqual(field('Name | enum="a,b"', { Name: "string | minLength=1" }).schema, {
      type: "string",
      enum: ["a", "b"],
      minLength: 1,
    });
  });
});

describe("markers: errors", () => {
  const cases: [string, string, RegExp][] = [
    ["string | nope=1", SCHEMA_ISSUE_CODES.unknownMarker, /unknown marker: nope/],
    ["string | Required=true", SCHEMA_ISSUE_CODES.unknownMarker, /unknown marker: Required/],
    ["string | required=yes", SCHEMA_ISSUE_CODES.invalidMarkerValue, /required: "yes" is not a boolean/],
    ["string | immutable=maybe", SCHEMA_ISSUE_CODES.invalidMarkerValue, /immutable/],
    ["integer | default=abc", SCHEMA_ISSUE_CODES.invalidDefault, /not an integer/],
    ["integer | default=1.5", SCHEMA_ISSUE_CODES.invalidDefault, /not an integer/],
    ["float | default=x", SCHEMA_ISSUE_CODES.invalidDefault, /not a number/],
    ["boolean | default=yes", SCHEMA_ISSUE_CODES.invalidDefault, /not a boolean/],
    ['string | default="a\\"b"', SCHEMA_ISSUE_CODES.invalidDefault, /not a valid string literal/],
    ["[]string | default=[1,", SCHEMA_ISSUE_CODES.markerSyntax, /unclosed/],
    ["[]string | default=nope", SCHEMA_ISSUE_CODES.invalidDefault, /not valid JSON/],
    ["[]string | default={}", SCHEMA_ISSUE_CODES.invalidDefault, /must be an array/],
    ["[]string | default=[1]", SCHEMA_ISSUE_CODES.invalidDefault, /\[0\] must be a string/],
    ['map[string]integer | default={"a": "x"}', SCHEMA_ISSUE_CODES.invalidDefault, /a must be an integer/],
    ["integer | minimum=low", SCHEMA_ISSUE_CODES.invalidMarkerValue, /minimum: "low" is not a number/],
    ["integer | maximum=", SCHEMA_ISSUE_CODES.invalidMarkerValue, /maximum/],
    ['string | enum=""', SCHEMA_ISSUE_CODES.invalidMarkerValue, /at least one value/],
    ['string | enum="a,,b"', SCHEMA_ISSUE_CODES.invalidMarkerValue, /empty value/],
    ['integer | enum="1,two"', SCHEMA_ISSUE_CODES.invalidMarkerValue, /"two" is not an integer/],
    ['boolean | enum="true"', SCHEMA_ISSUE_CODES.markerNotApplicable, /enum applies only to string and integer/],
    ['float | enum="1.5"', SCHEMA_ISSUE_CODES.markerNotApplicable, /enum/],
    ['[]string | enum="a"', SCHEMA_ISSUE_CODES.markerNotApplicable, /enum/],
    ['string | pattern=""', SCHEMA_ISSUE_CODES.invalidMarkerValue, /must not be empty/],
    ['string | pattern="(a"', SCHEMA_ISSUE_CODES.invalidMarkerValue, /not a valid regular expression/],
    ['string | pattern="a(?=b)"', SCHEMA_ISSUE_CODES.invalidMarkerValue, /Perl syntax/],
    ['integer | pattern="a"', SCHEMA_ISSUE_CODES.markerNotApplicable, /pattern applies only to string/],
    ["integer | minLength=1", SCHEMA_ISSUE_CODES.markerNotApplicable, /minLength/],
    ["string | maxLength=1.5", SCHEMA_ISSUE_CODES.invalidMarkerValue, /maxLength/],
    ["string | minItems=1", SCHEMA_ISSUE_CODES.markerNotApplicable, /minItems applies only to array/],
    ["[]string | maxItems=x", SCHEMA_ISSUE_CODES.invalidMarkerValue, /maxItems/],
    ["string | uniqueItems=true", SCHEMA_ISSUE_CODES.markerNotApplicable, /uniqueItems/],
    [
      "[]string | uniqueItems=true listType=atomic",
      SCHEMA_ISSUE_CODES.listTypeConflict,
      /conflicts with listType=atomic/,
    ],
    ["[]string | listType=list", SCHEMA_ISSUE_CODES.invalidMarkerValue, /must be one of atomic, set, map/],
    ["string | listType=set", SCHEMA_ISSUE_CODES.markerNotApplicable, /listType/],
    ["[]object | listMapKey=name", SCHEMA_ISSUE_CODES.listTypeConflict, /requires listType=map$/],
    ["[]object | listType=set listMapKey=name", SCHEMA_ISSUE_CODES.listTypeConflict, /not listType=set/],
    ["[]object | listType=map listMapKey=a listMapKey=a", SCHEMA_ISSUE_CODES.invalidMarkerValue, /duplicate key "a"/],
    ['string | validation=""', SCHEMA_ISSUE_CODES.invalidMarkerValue, /validation: must not be empty/],
    ["string | required=true | description=x", SCHEMA_ISSUE_CODES.multipleSeparators, /only one/],
    ["string | required", SCHEMA_ISSUE_CODES.markerSyntax, /no value/],
  ];
  for (const [spec, code, message] of cases) {
    it(spec, () => {
      const result = parseSimpleSchema({ f: spec });
      assert.equal(result.schema, undefined);
      const errors = result.issues.filter((i) => i.severity === "error");
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.equal(errors[0]?.code, code);
      assert.match(errors[0].message, message);
      assert.deepEqual(errors[0].path, FIELD_PATH);
    });
  }
});
