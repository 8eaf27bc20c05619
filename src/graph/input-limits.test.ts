import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRgd } from "./compile.js";
import { INPUT_LIMIT_CODES, MAX_RGD_DEPTH } from "./input-limits.js";

function rgdWithStatusDepth(depth: number): unknown {
  let status: unknown = "${cm.metadata.name}";
  for (let i = 0; i < depth; i++) status = { a: status };
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "deep" },
    spec: {
      schema: { apiVersion: "v1alpha1", kind: "DeepApp", spec: { name: "string" }, status: { x: status } },
      resources: [{ id: "cm", template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } } }],
    },
  };
}

describe("compileRgd is total on deep input", () => {
  for (const depth of [3000, 100_000]) {
    it(`a status nested ${depth} deep is one issue, not a throw`, () => {
      const result = compileRgd(rgdWithStatusDepth(depth));
      assert.equal(result.graph, undefined);
      assert.deepEqual(
        result.issues.map((i) => i.code),
        [INPUT_LIMIT_CODES.tooDeep],
      );
      assert.equal(result.issues[0]?.path.slice(0, 5).join("."), "spec.schema.status.x.a");
    });
  }
  it("a status well within the limit still compiles", () => {
    const result = compileRgd(rgdWithStatusDepth(MAX_RGD_DEPTH - 20));
    assert.ok(result.graph !== undefined, JSON.stringify(result.issues.slice(0, 2)));
  });
});
