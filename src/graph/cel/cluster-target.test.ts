// Cluster targets (cluster-target.ts): the shape an RGD author writes, the allow list an
// expression target needs, and the annotation the child carries.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createKroCelEnvironment } from "../../expr/index.js";
import { compileRgd } from "../compile.js";
import type { CompiledNode } from "../compiled-graph.js";

const env = createKroCelEnvironment({ enableRuntime: true });

function rgd(resource: Record<string, unknown>): unknown {
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "regional" },
    spec: {
      schema: { apiVersion: "v1alpha1", kind: "Regional", spec: { region: "string", regions: "[]string" } },
      resources: [
        {
          id: "cm",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.metadata.name}" },
            data: { a: "b" },
          },
          ...resource,
        },
      ],
    },
  };
}
const errors = (resource: Record<string, unknown>) =>
  compileRgd(rgd(resource), { env })
    .issues.filter((i) => i.severity === "error")
    .map((i) => [i.code, i.path.join(".")]);
function node(resource: Record<string, unknown>): CompiledNode {
  const compiled = compileRgd(rgd(resource), { env }).graph?.nodes[0];
  assert.ok(compiled !== undefined, "compiles");
  return compiled;
}

describe("cluster targets", () => {
  it("a constant target is its own allow list and travels as the child's annotation", () => {
    const compiled = node({ cluster: "eu-west" });
    assert.deepEqual(compiled.clusters, ["eu-west"]);
    assert.equal(
      (compiled.template as { metadata: { annotations: Record<string, string> } }).metadata.annotations[
        "kro.run/cluster"
      ],
      "eu-west",
    );
  });
  it("an expression target needs the RGD author's list, and depends on what it reads", () => {
    assert.deepEqual(errors({ cluster: "${schema.spec.region}" }), [
      ["rgd.cluster-allowlist-required", "spec.resources.0.cluster"],
    ]);
    const compiled = node({ cluster: "${schema.spec.region}", clusters: ["a", "b"] });
    assert.deepEqual(compiled.clusters, ["a", "b"]);
    assert.ok(
      compiled.fields.some((f) => f.path.includes("kro.run/cluster")),
      "the target is evaluated like any other field",
    );
  });
  it("a forEach item can name its cluster", () => {
    const compiled = node({
      forEach: [{ region: "${schema.spec.regions}" }],
      cluster: "${region}",
      clusters: ["a"],
      template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${schema.metadata.name}-${region}" } },
    });
    assert.equal(compiled.type, "collection");
    assert.deepEqual(compiled.clusters, ["a"]);
  });
  it("the target cluster counts as a forEach item's identity: one name, one copy per cluster", () => {
    const perCluster = {
      forEach: [{ region: "${schema.spec.regions}" }],
      cluster: "${region}",
      clusters: ["a", "b"],
      template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "${schema.metadata.name}" } },
    };
    assert.deepEqual(errors(perCluster), []);
    assert.deepEqual(
      errors({ ...perCluster, cluster: "a", clusters: undefined }),
      [["graph.foreach-identity", "spec.resources.0.template.metadata.name"]],
      "a constant target does not tell the items apart",
    );
  });
  it("an RGD without targets compiles exactly as before", () => {
    const compiled = node({});
    assert.equal(compiled.clusters, undefined);
    assert.equal((compiled.template as { metadata: Record<string, unknown> }).metadata.annotations, undefined);
  });
  for (const [label, resource, code] of [
    ["an invalid constant name", { cluster: "EU_West" }, "rgd.invalid-cluster-name"],
    ["a constant outside its own list", { cluster: "a", clusters: ["b"] }, "rgd.cluster-not-allowed"],
    ["a list without a target", { clusters: ["a"] }, "rgd.cluster-list-without-target"],
    ["an empty list", { cluster: "${schema.spec.region}", clusters: [] }, "rgd.invalid-field"],
    ["a non-string target", { cluster: 7 }, "rgd.invalid-field"],
    [
      "a target on an externalRef",
      {
        template: undefined,
        externalRef: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "y" } },
        cluster: "a",
      },
      "rgd.cluster-external",
    ],
  ] as const) {
    it(`refuses ${label}`, () => {
      assert.ok(
        errors(resource).some(([c]) => c === code),
        JSON.stringify(errors(resource)),
      );
    });
  }
  it("a template cannot set the target annotation itself (reserved prefix)", () => {
    const codes = errors({
      template: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "x", annotations: { "kro.run/cluster": "a" } },
      },
    }).map(([c]) => c);
    assert.ok(codes.includes("rgd.reserved-label"), JSON.stringify(codes));
  });
});
