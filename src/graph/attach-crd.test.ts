import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadYaml } from "../api/index.js";
import { attachToCrd, crdDefines } from "./attach-crd.js";

const root = new URL("../../../", import.meta.url);
const [doc] = loadYaml(
  "nginxapp-crd.yaml",
  readFileSync(new URL("examples/nginx/nginxapp-crd.yaml", root), "utf8"),
).documents;
assert.ok(doc);
const crd = doc.value as { spec: { versions: Record<string, unknown>[] } };
const nginx = { group: "kro.example.com", version: "v1", kind: "NginxApp" };

describe("attachToCrd (template dialect parent kinds)", () => {
  it("matches the CRD by group and kind", () => {
    assert.equal(crdDefines(crd, nginx), true);
    assert.equal(crdDefines(crd, { ...nginx, group: "other.com" }), false);
    assert.equal(crdDefines(crd, { ...nginx, kind: "Other" }), false);
    assert.equal(crdDefines({ kind: "ConfigMap" }, nginx), false);
  });

  it("plans status schema and subresource for the seed's CRD, leaving the rest as written", () => {
    const result = attachToCrd(crd, nginx);
    assert.ok(result.ok);
    assert.deepEqual(
      [result.crdName, result.plural, result.scope],
      ["nginxapps.kro.example.com", "nginxapps", "Namespaced"],
    );
    assert.deepEqual(result.additions, [
      "spec.versions[v1].schema.openAPIV3Schema.properties.status",
      "spec.versions[v1].subresources.status",
    ]);
    const [version] = crd.spec.versions;
    assert.ok(version);
    const schema = version.schema as { openAPIV3Schema: { properties: Record<string, unknown> } };
    assert.deepEqual(result.apply, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "nginxapps.kro.example.com" },
      spec: {
        versions: [
          {
            ...version,
            schema: {
              openAPIV3Schema: {
                ...schema.openAPIV3Schema,
                properties: {
                  ...schema.openAPIV3Schema.properties,
                  status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                },
              },
            },
            subresources: { status: {} },
          },
        ],
      },
    });
    assert.equal(
      (crd.spec.versions[0] as { subresources?: unknown }).subresources,
      undefined,
      "the input is not modified",
    );
  });

  it("adds nothing when status is stored already", () => {
    const withStatus = structuredClone(crd);
    const [version] = withStatus.spec.versions;
    assert.ok(version);
    version.subresources = { status: {} };
    (version.schema as { openAPIV3Schema: { properties: Record<string, unknown> } }).openAPIV3Schema.properties.status =
      { type: "object", properties: { x: { type: "string" } } };
    const result = attachToCrd(withStatus, nginx);
    assert.ok(result.ok);
    assert.deepEqual(result.additions, []);
    assert.equal(result.apply, undefined);
  });

  it("under a rollout, adds status.graphRevision to a status schema that would prune it, and only then", () => {
    const withStatus = structuredClone(crd);
    const [version] = withStatus.spec.versions;
    assert.ok(version);
    version.subresources = { status: {} };
    const properties = (version.schema as { openAPIV3Schema: { properties: Record<string, unknown> } }).openAPIV3Schema
      .properties;
    properties.status = { type: "object", properties: { x: { type: "string" } } };
    const result = attachToCrd(withStatus, nginx, true);
    assert.ok(result.ok);
    assert.deepEqual(result.additions, [
      "spec.versions[v1].schema.openAPIV3Schema.properties.status.properties.graphRevision",
    ]);
    const applied = result.apply as {
      spec: { versions: { schema: { openAPIV3Schema: { properties: { status: { properties: object } } } } }[] };
    };
    assert.deepEqual(
      Object.keys(applied.spec.versions[0]?.schema.openAPIV3Schema.properties.status.properties ?? {}),
      ["x", "graphRevision"],
      "the author's status fields stay",
    );
    properties.status = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
    assert.deepEqual(
      (attachToCrd(withStatus, nginx, true) as { additions: readonly string[] }).additions,
      [],
      "kept already",
    );
  });

  it("adds only the subresource when the schema keeps unknown fields at the root", () => {
    const open = structuredClone(crd);
    const [version] = open.spec.versions;
    assert.ok(version);
    version.schema = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };
    const result = attachToCrd(open, nginx);
    assert.ok(result.ok);
    assert.deepEqual(result.additions, ["spec.versions[v1].subresources.status"]);
  });

  it("rejects a CRD without the version, or not serving it", () => {
    const missing = attachToCrd(crd, { ...nginx, version: "v2" });
    assert.deepEqual(missing, { ok: false, message: "CRD nginxapps.kro.example.com has no version v2 (it has v1)" });
    const unserved = structuredClone(crd);
    const [version] = unserved.spec.versions;
    assert.ok(version);
    version.served = false;
    assert.deepEqual(attachToCrd(unserved, nginx), {
      ok: false,
      message: "CRD nginxapps.kro.example.com does not serve version v1",
    });
    assert.deepEqual(attachToCrd({ kind: "Secret" }, nginx), {
      ok: false,
      message: "this is not a CustomResourceDefinition for NginxApp.kro.example.com",
    });
  });
});
