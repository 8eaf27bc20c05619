import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { loadYaml } from "../../api/index.js";
import { createKroCelEnvironment } from "../../expr/index.js";
import { compileRgd, type CompiledGraph } from "../../graph/index.js";
import { applySchemaDefaults, validateInstance, type KubeJson } from "../../runtime/index.js";
import { schemaResolverFor } from "../inputs/inputs.js";
import { generateInstanceYaml } from "./generate-instance.js";

const RGD = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: { name: shop }
spec:
  schema:
    apiVersion: v1alpha1
    kind: Shop
    spec:
      name: string | required=true pattern="^[a-z][a-z0-9-]*$" maxLength=20 description="DNS name of the shop"
      tier: string | required=true enum="gold,silver,bronze"
      replicas: integer | required=true minimum=3 maximum=9
      ratio: float | minimum=0.5
      owner: string | required=true minLength=12
      email: string | required=true pattern="^[^@]+@[^@]+$"
      color: string | default="blue" enum="red,blue"
      labels: "map[string]string"
      zones: "[]string | required=true minItems=2 uniqueItems=true"
      ports: "[]Port | required=true minItems=1"
      debug: boolean
      limits:
        cpu: string | required=true
        memory: string | default="1Gi"
    types:
      Port:
        port: integer | required=true minimum=1 maximum=65535
        protocol: string | default="TCP" enum="TCP,UDP"
        name: string
  resources:
    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.spec.name}" }
        data: { tier: "\${schema.spec.tier}" }
`;

async function compile(text: string): Promise<CompiledGraph> {
  const file = loadYaml("rgd.yaml", text);
  const result = compileRgd(file.documents[0]?.value, {
    resolver: await schemaResolverFor(),
    env: createKroCelEnvironment({ enableRuntime: true }),
  });
  assert.ok(result.graph, JSON.stringify(result.issues));
  return result.graph;
}

function parsed(yaml: string): KubeJson {
  const file = loadYaml("sample.yaml", yaml);
  assert.deepEqual(file.problems, []);
  return file.documents[0]?.value as KubeJson;
}

describe("kro generate instance", () => {
  it("writes every required field with a value its schema accepts, defaults shown, optional fields commented out", async () => {
    const graph = await compile(RGD);
    if (graph.dialect !== "cel") return assert.fail("cel dialect expected");
    const sample = generateInstanceYaml(graph, graph.crd, {});
    assert.deepEqual(sample.problems, [], sample.yaml);
    const value = parsed(sample.yaml);
    assert.deepEqual(validateInstance(graph.crd, applySchemaDefaults(graph.crd, value)), []);
    assert.deepEqual(value.metadata, { name: "shop-sample", namespace: "default" });
    const spec = value.spec as Record<string, unknown>;
    assert.equal(spec.tier, "gold");
    assert.equal(spec.replicas, 3);
    assert.equal(spec.color, "blue", "a default is written with its value");
    assert.equal((spec.owner as string).length >= 12, true);
    assert.match(spec.email as string, /@/);
    assert.equal((spec.zones as string[]).length, 2);
    assert.notEqual((spec.zones as string[])[0], (spec.zones as string[])[1]);
    assert.deepEqual(spec.ports, [{ port: 1, protocol: "TCP" }]);
    assert.deepEqual(spec.limits, { cpu: "cpu", memory: "1Gi" });
    assert.equal(
      "debug" in spec || "labels" in spec || "ratio" in spec,
      false,
      "optional fields without a default are comments",
    );
    // The text documents the API.
    assert.match(
      sample.yaml,
      /^ {2}# DNS name of the shop\n {2}# string, required, at most 20 characters, matches \^\[a-z\]\[a-z0-9-\]\*\$\n {2}name: name$/m,
    );
    assert.match(sample.yaml, /^ {2}# string, required, one of: gold, silver, bronze\n {2}tier: gold$/m);
    assert.match(sample.yaml, /^ {2}# boolean, optional\n {2}# debug: false$/m);
    assert.match(sample.yaml, /^ {2}# map of string, optional\n {2}# labels: \{"key":"value"\}$/m);
    assert.match(sample.yaml, /^ {2}ports:\n {6}# integer, required, minimum 1, maximum 65535\n {4}- port: 1$/m);
  });

  it("--all fills in every field, and the result still validates", async () => {
    const graph = await compile(RGD);
    if (graph.dialect !== "cel") return assert.fail("cel dialect expected");
    const sample = generateInstanceYaml(graph, graph.crd, { all: true, name: "x", namespace: "team-a" });
    assert.deepEqual(sample.problems, [], sample.yaml);
    const value = parsed(sample.yaml);
    assert.deepEqual(validateInstance(graph.crd, applySchemaDefaults(graph.crd, value)), []);
    const spec = value.spec as Record<string, unknown>;
    assert.equal(spec.debug, false);
    assert.equal(spec.ratio, 0.5);
    assert.deepEqual(spec.labels, { key: "value" });
    assert.deepEqual(spec.ports, [{ port: 1, protocol: "TCP", name: "name" }]);
    assert.deepEqual(value.metadata, { name: "x", namespace: "team-a" });
    assert.doesNotMatch(sample.yaml, /^\s*# [a-z]+:/m, "no commented-out field");
  });

  it("names a CEL rule the placeholder cannot satisfy instead of printing an invalid sample silently", async () => {
    const graph = await compile(
      RGD.replace("debug: boolean", "code: string | required=true validation=\"self.startsWith('zz')\""),
    );
    if (graph.dialect !== "cel") return assert.fail("cel dialect expected");
    const sample = generateInstanceYaml(graph, graph.crd, {});
    assert.equal(sample.problems.length, 1, sample.yaml);
    assert.match(
      sample.problems[0]?.issue.message ?? "",
      /^the placeholder does not satisfy the schema: spec\.code: Invalid value: "code": validation failed/,
    );
  });

  it("quotes strings YAML would read as something else", async () => {
    const graph = await compile(
      RGD.replace('color: string | default="blue" enum="red,blue"', 'color: string | default="yes" enum="yes,no"'),
    );
    if (graph.dialect !== "cel") return assert.fail("cel dialect expected");
    const sample = generateInstanceYaml(graph, graph.crd, {});
    assert.match(sample.yaml, /^ {2}color: "yes"$/m);
    assert.equal((parsed(sample.yaml).spec as Record<string, unknown>).color, "yes");
  });
});
