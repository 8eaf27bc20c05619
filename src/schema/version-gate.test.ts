import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyCrdUpdate, type CrdSchemaSource } from "./breaking-changes.js";
import type { JSONSchemaProps } from "./openapi-types.js";

const spec = (properties: Record<string, JSONSchemaProps>): { openAPIV3Schema: JSONSchemaProps } => ({
  openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties } } },
});
const ALPHA = spec({ port: { type: "integer" } });
const BETA = spec({ ports: { type: "object", properties: { http: { type: "integer" } } } });
const crd = (
  versions: Record<string, { openAPIV3Schema: JSONSchemaProps }>,
  storedVersions?: string[],
): CrdSchemaSource => ({
  spec: { versions: Object.entries(versions).map(([name, schema]) => ({ name, schema })) },
  ...(storedVersions === undefined ? {} : { status: { storedVersions } }),
});

describe("the breaking-change gate with several versions", () => {
  it("a breaking change to a served version is refused", () => {
    const result = classifyCrdUpdate(
      crd({ v1alpha1: ALPHA }, ["v1alpha1"]),
      crd({ v1alpha1: spec({ port: { type: "string" } }) }),
    );
    assert.deepEqual(
      result.breaking.map((c) => [c.version, c.kind]),
      [["v1alpha1", "TypeChanged"]],
    );
  });

  it("the same change as a new version is accepted: the old version is untouched", () => {
    const result = classifyCrdUpdate(crd({ v1alpha1: ALPHA }, ["v1alpha1"]), crd({ v1alpha1: ALPHA, v1beta1: BETA }));
    assert.deepEqual(result.breaking, []);
    assert.deepEqual(
      result.nonBreaking.map((c) => [c.version, c.kind]),
      [["v1beta1", "VersionAdded"]],
    );
  });

  it("a breaking change inside the newer version is still refused", () => {
    const result = classifyCrdUpdate(
      crd({ v1alpha1: ALPHA, v1beta1: BETA }, ["v1beta1"]),
      crd({ v1alpha1: ALPHA, v1beta1: spec({}) }),
    );
    assert.deepEqual(
      result.breaking.map((c) => [c.version, c.description]),
      [["v1beta1", "spec.ports: property removed"]],
    );
  });

  it("removing a version objects are still stored at is refused; once migrated it is accepted", () => {
    const stillStored = classifyCrdUpdate(
      crd({ v1alpha1: ALPHA, v1beta1: BETA }, ["v1alpha1", "v1beta1"]),
      crd({ v1beta1: BETA }),
    );
    assert.deepEqual(
      stillStored.breaking.map((c) => c.description),
      ["version v1alpha1 removed while objects are still stored at it (storage migration has not finished)"],
    );
    const migrated = classifyCrdUpdate(crd({ v1alpha1: ALPHA, v1beta1: BETA }, ["v1beta1"]), crd({ v1beta1: BETA }));
    assert.deepEqual(migrated.breaking, []);
    assert.deepEqual(
      migrated.nonBreaking.map((c) => c.description),
      ["version v1alpha1 removed (no object is stored at it)"],
    );
  });
});
