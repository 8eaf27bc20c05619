import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadYaml } from "../../api/index.js";
import { formatIssue } from "../../diag/index.js";
import { compileFixture, compileValue, dig } from "../../../test/unit-support/runtime/fixtures.js";
import { applySchemaDefaults } from "./defaults.js";
import { validateInstance } from "./validate.js";
import type { CustomResourceDefinition } from "../../schema/index.js";
import type { KubeJson } from "../types.js";

const webapp = compileFixture("webapp");
const instance = (spec: unknown) => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "WebApp",
  metadata: { name: "shop", namespace: "team" },
  spec,
});

describe("applySchemaDefaults", () => {
  it("fills absent properties with their defaults, recursively inside defaulted objects", () => {
    const defaulted = applySchemaDefaults(webapp.crd, instance({ name: "shop" }));
    assert.deepEqual(defaulted.spec, { name: "shop", replicas: 2, regions: [], ingress: { enabled: false } });
  });

  it("keeps given values, does not modify its input, and accepts a bare schema", () => {
    const input = instance({ name: "shop", replicas: 5, ingress: {} });
    const defaulted = applySchemaDefaults(webapp.crd, input);
    assert.deepEqual(defaulted.spec, { name: "shop", replicas: 5, regions: [], ingress: { enabled: false } });
    assert.deepEqual(input.spec, { name: "shop", replicas: 5, ingress: {} });
    assert.deepEqual(applySchemaDefaults({ type: "object", properties: { a: { type: "string", default: "x" } } }, {}), {
      a: "x",
    });
  });

  it("treats null as the API server does: defaulted, or pruned, unless the field is nullable", () => {
    const schema = {
      type: "object",
      properties: {
        port: { type: "integer", default: 80 },
        name: { type: "string" },
        probe: { type: "object", nullable: true, default: { path: "/" } },
        note: { type: "string", nullable: true },
        list: { type: "array", items: { type: "object", default: { a: 1 } } },
        labels: { type: "object", additionalProperties: { type: "string", default: "on" } },
      },
      "x-kubernetes-preserve-unknown-fields": true,
    };
    const given = {
      port: null,
      name: null,
      probe: null,
      note: null,
      list: [null, { b: 2 }],
      labels: { x: null },
      extra: null,
    };
    assert.deepEqual(applySchemaDefaults(schema, given), {
      port: 80, // not nullable, has a default: the default
      probe: null, // nullable: kept, not defaulted
      note: null,
      list: [{ a: 1 }, { b: 2 }], // items: defaulted in place, never removed
      labels: { x: "on" },
      extra: null, // not in the schema (preserved unknown field): left alone
    });
  });
});

describe("validateInstance: API-server-shaped messages", () => {
  const graph = compileValue({
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "v" },
    spec: {
      schema: {
        apiVersion: "v1alpha1",
        kind: "Valid",
        spec: {
          name: 'string | required=true pattern="^[a-z]+$" maxLength=5',
          size: "string | enum=small,large default=small",
          replicas: "integer | minimum=1 maximum=3",
          tags: "[]string | maxItems=2 uniqueItems=true",
          port: 'integer | validation="self != 22"',
        },
      },
      resources: [],
    },
  });
  const check = (spec: unknown, metadata: unknown = { name: "x", namespace: "n" }) =>
    validateInstance(
      graph.crd,
      applySchemaDefaults(graph.crd, { apiVersion: "kro.run/v1alpha1", kind: "Valid", metadata, spec }),
    ).map(formatIssue);

  const cases: [string, unknown, string[]][] = [
    ["valid", { name: "abc", replicas: 2, tags: ["a"], port: 80 }, []],
    [
      "wrong type",
      { name: "abc", replicas: "two" },
      ['error: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer'],
    ],
    ["missing required", { replicas: 1 }, ["error: spec.name: Required value"]],
    [
      "enum",
      { name: "abc", size: "huge" },
      ['error: spec.size: Unsupported value: "huge": supported values: "small", "large"'],
    ],
    [
      "pattern and maxLength",
      { name: "ABCDEFG" },
      [
        "error: spec.name: Invalid value: \"ABCDEFG\": spec.name in body should match '^[a-z]+$'",
        'error: spec.name: Invalid value: "ABCDEFG": spec.name in body should be at most 5 chars long',
      ],
    ],
    [
      "minimum",
      { name: "abc", replicas: 0 },
      ["error: spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"],
    ],
    [
      "maximum",
      { name: "abc", replicas: 9 },
      ["error: spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 3"],
    ],
    [
      "list size and duplicates",
      { name: "abc", tags: ["a", "a", "b"] },
      ["error: spec.tags: Too many: 3: must have at most 2 items", 'error: spec.tags[1]: Duplicate value: "a"'],
    ],
    ["CEL rule", { name: "abc", port: 22 }, ["error: spec.port: Invalid value: 22: validation failed"]],
    ["undeclared field", { name: "abc", colour: "red" }, ['error: spec.colour: unknown field "spec.colour"']],
  ];
  for (const [name, spec, expected] of cases) {
    it(name, () => {
      assert.deepEqual(check(spec), expected);
    });
  }

  it("checks apiVersion, kind and metadata.name", () => {
    const issues = validateInstance(graph.crd, {
      apiVersion: "kro.run/v1",
      kind: "Other",
      metadata: {},
      spec: { name: "abc" },
    }).map(formatIssue);
    assert.deepEqual(issues, [
      'error: apiVersion: Invalid value: "kro.run/v1": expected kro.run/v1alpha1',
      'error: kind: Invalid value: "Other": expected Valid',
      "error: metadata.name: Required value: name is required",
    ]);
  });

  it("the defaulted worked example is valid", () => {
    assert.deepEqual(validateInstance(webapp.crd, applySchemaDefaults(webapp.crd, instance({ name: "shop" }))), []);
    assert.equal(dig(applySchemaDefaults(webapp.crd, instance({ name: "shop" })), "spec", "replicas"), 2);
  });
});

describe("validateInstance: a user's own CRD (template dialect)", () => {
  const read = (name: string): KubeJson => {
    const [doc] = loadYaml(
      name,
      readFileSync(new URL(`../../../../examples/nginx/${name}`, import.meta.url), "utf8"),
    ).documents;
    return doc?.value as KubeJson;
  };
  const crd = read("nginxapp-crd.yaml") as unknown as CustomResourceDefinition;

  it("accepts the seed's instance although the schema does not declare apiVersion, kind or metadata", () => {
    assert.deepEqual(validateInstance(crd, applySchemaDefaults(crd, read("my-nginx.yaml"))), []);
  });

  it("still rejects undeclared fields below the root", () => {
    const instance = read("my-nginx.yaml");
    const bad = {
      ...instance,
      spec: { ...(instance.spec as KubeJson), image: { repository: "nginx", colour: "red" } },
    };
    assert.deepEqual(validateInstance(crd, bad).map(formatIssue), [
      'error: spec.image.colour: unknown field "spec.image.colour"',
    ]);
  });
});
