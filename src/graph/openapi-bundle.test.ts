import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { schemaBundleFromOpenApi } from "./openapi-bundle.js";
import { builtinSchemaResolver } from "./schema-resolver.js";

const appsDocument = {
  components: {
    schemas: {
      "io.k8s.api.apps.v1.Deployment": {
        type: "object",
        properties: { spec: { allOf: [{ $ref: "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec" }] } },
        "x-kubernetes-group-version-kind": [{ group: "apps", kind: "Deployment", version: "v1" }],
      },
      "io.k8s.api.apps.v1.DeploymentSpec": {
        type: "object",
        properties: { replicas: { type: "integer", format: "int32" } },
      },
      // described by this document but served by another group-version
      "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions": {
        type: "object",
        "x-kubernetes-group-version-kind": [
          { group: "", kind: "DeleteOptions", version: "v1" },
          { group: "apps", kind: "DeleteOptions", version: "v1" },
        ],
      },
    },
  },
};

describe("schemaBundleFromOpenApi", () => {
  const bundle = schemaBundleFromOpenApi("live", [
    {
      groupVersion: "apps/v1",
      document: appsDocument,
      resources: [{ kind: "Deployment", plural: "deployments", namespaced: true }],
    },
    { groupVersion: "v1", document: { components: "not a map" }, resources: [] },
  ]);

  it("keeps only the kinds discovery serves in each document's own group-version", () => {
    assert.deepEqual(bundle.kinds, {
      "apps/v1/Deployment": { schema: "io.k8s.api.apps.v1.Deployment", plural: "deployments", namespaced: true },
    });
    assert.equal(bundle.kubernetesVersion, "live");
  });

  it("resolves through the bundled-schema resolver with $refs inlined", () => {
    const resolved = builtinSchemaResolver(bundle).resolve("apps/v1", "Deployment");
    assert.ok(resolved);
    assert.equal(resolved.plural, "deployments");
    assert.deepEqual(resolved.schema.properties?.spec?.properties?.replicas, { type: "integer", format: "int32" });
    assert.equal(builtinSchemaResolver(bundle).resolve("apps/v1", "DeleteOptions"), undefined);
  });
});
