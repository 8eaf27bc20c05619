import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { synthesizeCrd } from "./crd-builder.js";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import { DEFAULT_PRINTER_COLUMNS } from "./printer-columns.js";
import { parseSimpleSchema } from "./simple-schema.js";
import {
  buildStatusSchema,
  CONDITIONS_SCHEMA,
  keepsStatusRecord,
  STATUS_RECORD_SCHEMA,
  UNKNOWN_TYPE_SCHEMA,
} from "./status-schema.js";

const specSchema = parseSimpleSchema({ name: "string | required=true", replicas: "integer | default=2" }).schema ?? {};

describe("synthesizeCrd", () => {
  it("builds the CRD of the worked example", () => {
    const { crd, issues } = synthesizeCrd({
      kind: "WebApp",
      version: "v1alpha1",
      specSchema,
      statusFields: [
        { path: ["available"], schema: { type: "integer" } },
        { path: ["url"], schema: { type: "string" } },
      ],
    });
    assert.deepEqual(issues, []);
    assert.equal(crd.metadata.name, "webapps.kro.run");
    assert.deepEqual(crd.spec.names, { kind: "WebApp", listKind: "WebAppList", plural: "webapps", singular: "webapp" });
    assert.equal(crd.spec.group, "kro.run");
    assert.equal(crd.spec.scope, "Namespaced");
    assert.equal(crd.spec.versions.length, 1);
    const [version] = crd.spec.versions;
    assert.ok(version);
    assert.deepEqual(
      [version.name, version.served, version.storage, version.subresources],
      ["v1alpha1", true, true, { status: {} }],
    );
    assert.deepEqual(version.additionalPrinterColumns, DEFAULT_PRINTER_COLUMNS);
    const root = version.schema.openAPIV3Schema;
    assert.equal(root.type, "object");
    assert.equal(root.required, undefined);
    assert.deepEqual(Object.keys(root.properties ?? {}), ["apiVersion", "kind", "metadata", "spec", "status"]);
    assert.deepEqual(root.properties?.metadata, { type: "object" });
    assert.deepEqual(root.properties.spec, specSchema);
    assert.deepEqual(root.properties.status, {
      type: "object",
      properties: {
        available: { type: "integer" },
        conditions: CONDITIONS_SCHEMA,
        kroInventory: STATUS_RECORD_SCHEMA,
        observedGeneration: { type: "integer" },
        state: { type: "string" },
        url: { type: "string" },
      },
    });
  });

  it("passes scope, group, names, labels, annotations and author columns through", () => {
    const columns = [{ name: "Image", type: "string", jsonPath: ".spec.image" }];
    const { crd, issues } = synthesizeCrd({
      kind: "Policy",
      version: "v1",
      group: "example.com",
      scope: "Cluster",
      specSchema,
      additionalPrinterColumns: columns,
      shortNames: ["pol"],
      categories: ["kro"],
      labels: { "kro.run/owned": "true" },
      annotations: { note: "x" },
    });
    assert.deepEqual(issues, []);
    assert.equal(crd.metadata.name, "policies.example.com");
    assert.deepEqual(crd.metadata.labels, { "kro.run/owned": "true" });
    assert.deepEqual(crd.metadata.annotations, { note: "x" });
    assert.equal(crd.spec.scope, "Cluster");
    assert.deepEqual(crd.spec.names.shortNames, ["pol"]);
    assert.deepEqual(crd.spec.names.categories, ["kro"]);
    assert.deepEqual(crd.spec.versions[0]?.additionalPrinterColumns, columns, "author columns replace the defaults");
  });

  it("reports invalid kind, version and group at their paths", () => {
    const { issues } = synthesizeCrd({ kind: "webApp", version: "1", group: "Bad_Group", specSchema });
    assert.deepEqual(
      issues.map((i) => [i.code, i.path.join(".")]),
      [
        [SCHEMA_ISSUE_CODES.invalidCrdInput, "spec.schema.kind"],
        [SCHEMA_ISSUE_CODES.invalidCrdInput, "spec.schema.apiVersion"],
        [SCHEMA_ISSUE_CODES.invalidCrdInput, "spec.schema.group"],
      ],
    );
  });
});

describe("buildStatusSchema", () => {
  it("nests paths into objects and keeps author state/conditions/observedGeneration", () => {
    const { schema, issues } = buildStatusSchema([
      { path: ["network", "url"], schema: { type: "string" } },
      { path: ["network", "ports"], schema: { type: "array", items: { type: "integer" } } },
      { path: ["raw"], schema: UNKNOWN_TYPE_SCHEMA },
      { path: ["state"], schema: { type: "integer" } },
      { path: ["a.b"], schema: { type: "boolean" } },
      { path: ["observedGeneration"], schema: { type: "string" } },
    ]);
    assert.deepEqual(issues, []);
    assert.deepEqual(schema, {
      type: "object",
      properties: {
        "a.b": { type: "boolean" },
        conditions: CONDITIONS_SCHEMA,
        kroInventory: STATUS_RECORD_SCHEMA,
        network: {
          type: "object",
          properties: { ports: { type: "array", items: { type: "integer" } }, url: { type: "string" } },
        },
        observedGeneration: { type: "string" },
        raw: { "x-kubernetes-preserve-unknown-fields": true },
        state: { type: "integer" },
      },
    });
  });

  it("an author's status field named kroInventory wins, and the CRD then does not keep the controller's record", () => {
    const crdWith = (fields: Parameters<typeof buildStatusSchema>[0]) =>
      synthesizeCrd({ kind: "App", version: "v1alpha1", specSchema: { type: "object" }, statusFields: fields }).crd;
    assert.equal(keepsStatusRecord(crdWith([{ path: ["url"], schema: { type: "string" } }])), true);
    const authored = crdWith([{ path: ["kroInventory"], schema: { type: "string" } }]);
    assert.deepEqual(authored.spec.versions[0]?.schema.openAPIV3Schema.properties?.status?.properties?.kroInventory, {
      type: "string",
    });
    assert.equal(keepsStatusRecord(authored), false);
    // A CRD from elsewhere (an older release, a user's): no field, or no status subresource.
    assert.equal(
      keepsStatusRecord({
        spec: {
          versions: [
            {
              schema: { openAPIV3Schema: { type: "object", properties: { status: { type: "object" } } } },
              subresources: { status: {} },
            },
          ],
        },
      }),
      false,
    );
    assert.equal(keepsStatusRecord({ spec: { versions: [] } }), false);
  });

  it("rejects a path that is both a value and an object, twice declared, or empty", () => {
    const { issues } = buildStatusSchema([
      { path: ["a"], schema: { type: "string" } },
      { path: ["a", "b"], schema: { type: "string" } },
      { path: ["c", "d"], schema: { type: "string" } },
      { path: ["c"], schema: { type: "string" } },
      { path: ["e"], schema: { type: "string" } },
      { path: ["e"], schema: { type: "string" } },
      { path: [], schema: { type: "string" } },
    ]);
    assert.deepEqual(
      issues.map((i) => i.path.join(".")),
      ["spec.schema.status.a.b", "spec.schema.status.c", "spec.schema.status.e", "spec.schema.status"],
    );
    assert.ok(issues.every((i) => i.code === SCHEMA_ISSUE_CODES.statusPathConflict));
  });
});
