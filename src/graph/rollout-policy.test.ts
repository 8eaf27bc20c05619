// spec.rollout read into a policy: defaults, every kind of wave, and each mistake an error at its
// path (so `kro validate` prints file:line:column); an RGD with an invalid policy does not compile,
// and one without a policy compiles to exactly the graph it did before.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadYaml } from "../api/index.js";
import { formatPath } from "../diag/index.js";
import { compileRgd } from "./compile.js";
import { compileRolloutPolicy, parseRolloutDuration } from "./rollout-policy.js";

const errorsAt = (value: unknown): string[] =>
  compileRolloutPolicy(value).issues.map((i) => `${formatPath(i.path)}: ${i.message}`);

const rgdText = (rollout: string): string => `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: webapp
spec:
  schema:
    apiVersion: v1alpha1
    kind: WebApp
    spec:
      name: string
    status:
      available: \${deploy.status.?availableReplicas.orValue(0)}
  resources:
    - id: deploy
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: \${schema.spec.name}
${rollout}`;

describe("spec.rollout", () => {
  it("reads every kind of wave, durations and the defaults", () => {
    const { policy, issues } = compileRolloutPolicy({
      waves: [
        { name: "canary", selector: { matchLabels: { canary: "true" } } },
        { name: "staging", namespaces: ["staging", "qa"] },
        { name: "europe", clusters: ["eu-west", "eu-north"] },
        { name: "a-tenth", percent: 10 },
        { name: "half", percent: 50 },
        { name: "everyone" },
      ],
      maxUpdating: "20%",
      gate: { readyWithin: "1h30m" },
      pauseBetweenWaves: "90s",
      onFailure: "Rollback",
      pinning: { maxRevisionsBack: 2 },
    });
    assert.deepEqual(issues, []);
    assert.deepEqual(
      policy?.waves.map((w) => w.selection.kind),
      ["selector", "namespaces", "clusters", "percent", "percent", "rest"],
    );
    assert.deepEqual(policy.maxUpdating, { percent: 20 });
    assert.equal(policy.readyWithinMs, 90 * 60_000);
    assert.equal(policy.pauseBetweenWavesMs, 90_000);
    assert.equal(policy.onFailure, "Rollback");
    assert.equal(policy.maxRevisionsBack, 2);

    const defaults = compileRolloutPolicy({}).policy;
    assert.deepEqual(defaults, {
      waves: [],
      maxUpdating: { percent: 25 },
      readyWithinMs: 600_000,
      healthyWhen: [],
      pauseBetweenWavesMs: 0,
      onFailure: "Halt",
      maxRevisionsBack: 0,
    });
    assert.deepEqual(compileRolloutPolicy({ maxUpdating: 3 }).policy?.maxUpdating, { count: 3 });
  });

  it("parses Go durations", () => {
    assert.equal(parseRolloutDuration("10m"), 600_000);
    assert.equal(parseRolloutDuration("1.5h"), 5_400_000);
    assert.equal(parseRolloutDuration("250ms"), 250);
    assert.equal(parseRolloutDuration("10"), undefined);
    assert.equal(parseRolloutDuration("10 m"), undefined);
  });

  it("names each mistake at its path", () => {
    const cases: [string, unknown, string][] = [
      ["not an object", [], "spec.rollout: spec.rollout must be an object"],
      ["an unknown field", { wave: [] }, 'spec.rollout.wave: unknown field "wave"'],
      ["a wave without a name", { waves: [{ percent: 10 }] }, "spec.rollout.waves[0].name: a wave needs a name"],
      [
        "two waves of one name",
        {
          waves: [
            { name: "a", percent: 10 },
            { name: "a", percent: 20 },
          ],
        },
        'spec.rollout.waves[1].name: wave "a" is already waves[0]',
      ],
      [
        "two selections in one wave",
        { waves: [{ name: "a", percent: 10, namespaces: ["x"] }] },
        'spec.rollout.waves[0]: wave "a" has namespaces and percent',
      ],
      [
        "a wave after the wave of everyone left",
        { waves: [{ name: "rest" }, { name: "late", percent: 50 }] },
        'spec.rollout.waves[1]: wave "late" comes after wave "rest"',
      ],
      [
        "percentages not rising",
        {
          waves: [
            { name: "a", percent: 50 },
            { name: "b", percent: 50 },
          ],
        },
        'spec.rollout.waves[1].percent: percent is cumulative: wave "b" (50 %) must be above waves[0] (50 %)',
      ],
      ["a share of 0", { waves: [{ name: "a", percent: 0 }] }, "spec.rollout.waves[0].percent: percent must be"],
      [
        "In without values",
        { waves: [{ name: "a", selector: { matchExpressions: [{ key: "tier", operator: "In" }] } }] },
        "spec.rollout.waves[0].selector.matchExpressions[0].values: In needs at least one value",
      ],
      [
        "an unknown operator",
        { waves: [{ name: "a", selector: { matchExpressions: [{ key: "tier", operator: "Equals" }] } }] },
        "spec.rollout.waves[0].selector.matchExpressions[0].operator: operator must be In, NotIn",
      ],
      [
        "an empty selector",
        { waves: [{ name: "a", selector: {} }] },
        "spec.rollout.waves[0].selector: an empty selector takes every instance",
      ],
      [
        "no namespaces",
        { waves: [{ name: "a", namespaces: [] }] },
        "spec.rollout.waves[0].namespaces: namespaces must",
      ],
      [
        "no clusters",
        { waves: [{ name: "a", clusters: [] }] },
        "spec.rollout.waves[0].clusters: clusters must be a non-empty list",
      ],
      [
        "clusters and a selector in one wave",
        { waves: [{ name: "a", clusters: ["eu"], selector: { matchLabels: { a: "b" } } }] },
        'spec.rollout.waves[0]: wave "a" has selector and clusters',
      ],
      ["maxUpdating 0", { maxUpdating: 0 }, "spec.rollout.maxUpdating: maxUpdating must be"],
      ["maxUpdating 150%", { maxUpdating: "150%" }, "spec.rollout.maxUpdating: maxUpdating must be"],
      [
        "a deadline without a unit",
        { gate: { readyWithin: "10" } },
        "spec.rollout.gate.readyWithin: readyWithin must be a positive duration",
      ],
      [
        "a deadline of 0",
        { gate: { readyWithin: "0s" } },
        "spec.rollout.gate.readyWithin: readyWithin must be a positive duration",
      ],
      [
        "a pause that is no duration",
        { pauseBetweenWaves: "soon" },
        "spec.rollout.pauseBetweenWaves: pauseBetweenWaves must be a duration",
      ],
      [
        "a health check that is not an expression",
        { gate: { healthyWhen: ["ready"] } },
        'spec.rollout.gate.healthyWhen[0]: healthyWhen entries must be a single "${...}" expression',
      ],
      ["an unknown failure mode", { onFailure: "Retry" }, "spec.rollout.onFailure: onFailure must be Halt or Rollback"],
      [
        "pins too far back",
        { pinning: { maxRevisionsBack: -1 } },
        "spec.rollout.pinning.maxRevisionsBack: maxRevisionsBack must be",
      ],
    ];
    for (const [what, value, expected] of cases) {
      const errors = errorsAt(value);
      assert.ok(
        errors.some((e) => e.startsWith(expected)),
        `${what}: expected "${expected}…", got ${JSON.stringify(errors)}`,
      );
      assert.equal(compileRolloutPolicy(value).policy, undefined, `${what}: no policy from an invalid one`);
    }
  });

  it("types healthyWhen against the instance and points at the line and column of a mistake", () => {
    const good = compileRgd(
      loadYaml(
        "webapp.yaml",
        rgdText("  rollout:\n    gate:\n      healthyWhen:\n        - ${schema.status.available > 0}\n"),
      ).documents[0]?.value,
    );
    assert.deepEqual(
      good.issues.filter((i) => i.severity === "error"),
      [],
    );
    assert.deepEqual(good.graph?.rollout?.healthyWhen, ["${schema.status.available > 0}"]);
    const statusOf = (graph: typeof good.graph) =>
      graph?.crd?.spec.versions[0]?.schema.openAPIV3Schema.properties?.status?.properties ?? {};
    assert.ok("graphRevision" in statusOf(good.graph), "the CRD keeps the revision each instance records");

    const text = rgdText("  rollout:\n    gate:\n      healthyWhen:\n        - ${schema.spec.name}\n");
    const [document] = loadYaml("webapp.yaml", text).documents;
    const bad = compileRgd(document?.value);
    assert.equal(bad.graph, undefined, "an RGD with an invalid policy does not compile");
    const issue = bad.issues.find((i) => i.severity === "error");
    assert.deepEqual(issue?.path, ["spec", "rollout", "gate", "healthyWhen", 0]);
    const position = document?.locate(issue.path, issue.inner);
    assert.equal(position?.line, text.split("\n").findIndex((l) => l.endsWith("- ${schema.spec.name}")) + 1);
    assert.equal(position.column, 11);
  });

  it("leaves an RGD without a policy as it was, in both dialects", () => {
    const cel = compileRgd(loadYaml("webapp.yaml", rgdText("")).documents[0]?.value);
    assert.ok(cel.graph !== undefined);
    assert.equal("rollout" in cel.graph, false);
    assert.equal(
      "graphRevision" in (cel.graph.crd?.spec.versions[0]?.schema.openAPIV3Schema.properties?.status?.properties ?? {}),
      false,
      "the generated CRD is exactly as before",
    );
    const template = {
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      metadata: { name: "t" },
      spec: {
        resourceKind: { group: "example.com", version: "v1", kind: "App" },
        childResources: [
          { apiVersion: "v1", kind: "ConfigMap", nameTemplate: "{{ .metadata.name }}", template: "data: {}" },
        ],
      },
    };
    const plain = compileRgd(template);
    assert.ok(plain.graph !== undefined, JSON.stringify(plain.issues));
    assert.equal("rollout" in plain.graph, false);
    const withPolicy = compileRgd({
      ...template,
      spec: { ...template.spec, rollout: { maxUpdating: 2, gate: { healthyWhen: ["${schema.status.ok == true}"] } } },
    });
    assert.deepEqual(withPolicy.graph?.rollout?.maxUpdating, { count: 2 }, JSON.stringify(withPolicy.issues));
  });
});
