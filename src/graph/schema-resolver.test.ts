import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { crdSchemaResolver, withCrds } from "./schema-resolver.js";

const crd = (schema: unknown) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  spec: {
    group: "example.com",
    scope: "Namespaced",
    names: { kind: "Gadget", plural: "gadgets" },
    versions: [{ name: "v1", schema: { openAPIV3Schema: schema } }],
  },
});
const SPEC = { type: "object", properties: { size: { type: "integer" } } };
const OBJECT_META = { type: "object", properties: { name: { type: "string" } } };

describe("kinds of CRD manifests", () => {
  it("are typed as the API server publishes them: apiVersion, kind and ObjectMeta added", () => {
    const resolver = crdSchemaResolver([crd({ type: "object", properties: { spec: SPEC } })], OBJECT_META);
    assert.deepEqual(resolver.resolve("example.com/v1", "Gadget")?.schema.properties, {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: OBJECT_META,
      spec: SPEC,
    });
  });

  it("keep what the CRD declares itself, and a schema without properties as it is", () => {
    const own = { type: "object", properties: { name: { type: "string", maxLength: 20 } } };
    const resolver = crdSchemaResolver([crd({ type: "object", properties: { metadata: own } })], OBJECT_META);
    assert.deepEqual(resolver.resolve("example.com/v1", "Gadget")?.schema.properties?.metadata, own);
    const open = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
    assert.deepEqual(crdSchemaResolver([crd(open)]).resolve("example.com/v1", "Gadget")?.schema, open);
  });

  it("take ObjectMeta from the resolver they are laid over", () => {
    const base = {
      resolve: (apiVersion: string, kind: string) =>
        apiVersion === "v1" && kind === "ConfigMap"
          ? {
              schema: { type: "object", properties: { metadata: OBJECT_META } },
              namespaced: true,
              plural: "configmaps",
            }
          : undefined,
    };
    const resolver = withCrds([crd({ type: "object", properties: { spec: SPEC } })], base);
    assert.deepEqual(resolver.resolve("example.com/v1", "Gadget")?.schema.properties?.metadata, OBJECT_META);
    assert.equal(resolver.resolve("v1", "ConfigMap")?.plural, "configmaps");
  });
});
