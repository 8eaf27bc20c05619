import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { attachToCrd } from "./attach-crd.js";

/** A user's own CRD with two versions and its own conversion webhook, storing no status. */
const userCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    names: { kind: "Widget", plural: "widgets" },
    scope: "Namespaced",
    conversion: {
      strategy: "Webhook",
      webhook: {
        conversionReviewVersions: ["v1"],
        clientConfig: { service: { namespace: "widgets", name: "converter" }, caBundle: "Q0E=" },
      },
    },
    versions: [
      {
        name: "v1",
        served: true,
        storage: false,
        deprecated: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
          },
        },
      },
      {
        name: "v2",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: { dimensions: { type: "object", properties: { size: { type: "integer" } } } },
              },
            },
          },
        },
      },
    ],
  },
};

describe("the template dialect attaches to a user's CRD with several versions", () => {
  it("adds status storage to every version and leaves versions, storage, deprecation and conversion as the user wrote them", () => {
    const result = attachToCrd(userCrd, { group: "example.com", version: "v2", kind: "Widget" });
    assert.ok(result.ok);
    const apply = result.apply as { spec: Record<string, unknown> & { versions: Record<string, unknown>[] } };
    assert.deepEqual(
      Object.keys(apply.spec),
      ["versions"],
      "the apply configuration owns nothing but the versions list (conversion stays the user's)",
    );
    assert.deepEqual(
      apply.spec.versions.map((v) => [v.name, v.served, v.storage, v.deprecated]),
      [
        ["v1", true, false, true],
        ["v2", true, true, undefined],
      ],
    );
    for (const [i, version] of apply.spec.versions.entries()) {
      const original = userCrd.spec.versions[i] as unknown as {
        schema: { openAPIV3Schema: { properties: Record<string, unknown> } };
      };
      const schema = (version as { schema: { openAPIV3Schema: { properties: Record<string, unknown> } } }).schema
        .openAPIV3Schema.properties;
      assert.deepEqual(
        schema.spec,
        original.schema.openAPIV3Schema.properties.spec,
        `version ${String(version.name)} keeps its own spec schema`,
      );
      assert.deepEqual(schema.status, { type: "object", "x-kubernetes-preserve-unknown-fields": true });
    }
  });

  it("serves any version the user's CRD serves, and refuses one it does not", () => {
    assert.ok(attachToCrd(userCrd, { group: "example.com", version: "v1", kind: "Widget" }).ok);
    const unserved = structuredClone(userCrd);
    (unserved.spec.versions[0] as { served: boolean }).served = false;
    const result = attachToCrd(unserved, { group: "example.com", version: "v1", kind: "Widget" });
    assert.ok(!result.ok);
    assert.match(result.message, /does not serve version v1/);
  });
});
