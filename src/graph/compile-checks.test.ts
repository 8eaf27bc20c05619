// The forEach identity rule (docs/reference/kro-reference.md §5 step 4), author conditions (§6.11)
// and the unbounded-cost warning, each on a variant of the worked example.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { loadYaml } from "../api/index.js";
import { createKroCelEnvironment, UNBOUNDED_COST_CODE } from "../expr/index.js";
import { compileRgd } from "./compile.js";
import { builtinSchemaResolver, type BuiltinSchemaBundle } from "./schema-resolver.js";

const root = new URL("../../../", import.meta.url);
const bundle = JSON.parse(
  gunzipSync(readFileSync(new URL("schemas/kubernetes/1.33.json.gz", root))).toString("utf8"),
) as BuiltinSchemaBundle;
const resolver = builtinSchemaResolver(bundle);
const env = createKroCelEnvironment({ enableRuntime: true });
const webapp = loadYaml("webapp.yaml", readFileSync(new URL("test/fixtures/rgd/webapp.yaml", root), "utf8"))
  .documents[0]?.value;

interface Rgd {
  spec: {
    schema: { spec: Record<string, unknown>; status: Record<string, unknown> };
    resources: { forEach?: unknown; template: { metadata: Record<string, unknown> } }[];
  };
}

function compileVariant(change: (rgd: Rgd) => void): ReturnType<typeof compileRgd> {
  const copy = structuredClone(webapp) as Rgd;
  change(copy);
  return compileRgd(copy, { resolver, env });
}

/** The collection `cms` (resources[3]) with other dimensions and identity fields. */
function collection(forEach: Record<string, string>[], metadata: Record<string, unknown>): (rgd: Rgd) => void {
  return (r) => {
    const cms = r.spec.resources[3];
    assert.ok(cms);
    cms.forEach = forEach;
    cms.template.metadata = metadata;
  };
}

const conditions =
  (...entries: unknown[]) =>
  (r: Rgd): void => {
    r.spec.schema.status.conditions =
      entries.length === 1 && !Array.isArray(entries[0]) && typeof entries[0] !== "string" ? entries[0] : entries;
  };

const CONDITIONS = ["spec", "schema", "status", "conditions"];
const CMS_NAME = ["spec", "resources", 3, "template", "metadata", "name"];

describe("compileRgd: forEach and author-condition checks", () => {
  const cases: [what: string, change: (rgd: Rgd) => void, code: string, path: (string | number)[], message: RegExp][] =
    [
      [
        "a forEach name without its iterator",
        collection([{ region: "${schema.spec.regions}" }], { name: "${schema.spec.name}" }),
        "graph.foreach-identity",
        CMS_NAME,
        /^resource "cms": all forEach dimensions must be used to produce a unique resource identity, missing: \[region\]$/,
      ],
      [
        "one of two iterators missing from the identity",
        collection([{ region: "${schema.spec.regions}" }, { tier: "${['a', 'b']}" }], {
          name: "${schema.spec.name}-${region}",
        }),
        "graph.foreach-identity",
        CMS_NAME,
        /missing: \[tier\]$/,
      ],
      [
        "a forEach template without metadata.name",
        collection([{ region: "${schema.spec.regions}" }], { generateName: "x-" }),
        "graph.foreach-identity",
        ["spec", "resources", 3, "template", "metadata"],
        /missing: \[region\]/,
      ],
      [
        "an iterator reading another iterator",
        collection([{ region: "${schema.spec.regions}" }, { zone: "${[region + '-a']}" }], {
          name: "${region}-${zone}",
        }),
        "graph.foreach-iterator-reference",
        ["spec", "resources", 3, "forEach", 1, "zone"],
        /iterator "zone" cannot reference other iterators \(it reads "region"\)/,
      ],
      [
        "more than 10 forEach dimensions",
        collection(
          Array.from({ length: 11 }, (_, i) => ({ [`d${i}`]: "${['x']}" })),
          { name: Array.from({ length: 11 }, (_, i) => `\${d${i}}`).join("-") },
        ),
        "rgd.foreach-too-many",
        ["spec", "resources", 3, "forEach"],
        /11 dimensions; at most 10/,
      ],
      [
        "conditions that are not a list",
        conditions({ ready: "${true}" }),
        "rgd.invalid-field",
        CONDITIONS,
        /must be a list/,
      ],
      [
        "a condition that is not standalone",
        conditions("x-${runtime.newCondition({type: 'A', status: 'True'})}"),
        "rgd.not-standalone",
        [...CONDITIONS, 0],
        /single "\$\{\.\.\.\}" expression/,
      ],
      [
        "a condition that returns something else",
        conditions("${schema.spec.name}"),
        "condition.not-a-condition",
        [...CONDITIONS, 0],
        /must be runtime\.newCondition\(\{\.\.\.\}\) or a list of them/,
      ],
      [
        "a condition map with a quoted key",
        conditions("${runtime.newCondition({'type': 'A', status: 'True'})}"),
        "condition.key-not-literal",
        [...CONDITIONS, 0],
        /^runtime\.newCondition: keys must be bare identifiers \(type, status, reason, message\); quoted or computed keys are not allowed$/,
      ],
      [
        "a condition map with a computed key",
        conditions("${runtime.newCondition({type: 'A', status: 'True', ('rea' + 'son'): 'x'})}"),
        "condition.key-not-literal",
        [...CONDITIONS, 0],
        /keys must be bare identifiers/,
      ],
      [
        "a condition map with an unknown key",
        conditions("${runtime.newCondition({type: 'A', status: 'True', colour: 'red'})}"),
        "condition.unknown-key",
        [...CONDITIONS, 0],
        /^runtime\.newCondition: unknown key "colour" \(allowed: type, status, reason, message\)$/,
      ],
      [
        "a condition map with a duplicate key",
        conditions("${runtime.newCondition({type: 'A', status: 'True', type: 'B'})}"),
        "condition.duplicate-key",
        [...CONDITIONS, 0],
        /duplicate key "type"/,
      ],
      [
        "a condition argument that is not a map literal",
        conditions("${runtime.newCondition(dyn({}))}"),
        "condition.map-literal",
        [...CONDITIONS, 0],
        /argument must be a map literal/,
      ],
      [
        "a condition without status",
        conditions("${runtime.newCondition({type: 'A'})}"),
        "condition.missing-field",
        [...CONDITIONS, 0],
        /^runtime\.newCondition: 'status' is required$/,
      ],
      [
        "a condition without type",
        conditions("${[runtime.newCondition({status: 'True'})]}"),
        "condition.missing-field",
        [...CONDITIONS, 0],
        /'type' is required/,
      ],
      [
        "a literal status other than True|False|Unknown",
        conditions("${runtime.newCondition({type: 'A', status: 'Yes'})}"),
        "condition.invalid-status",
        [...CONDITIONS, 0],
        /must be True, False or Unknown, got "Yes"/,
      ],
      [
        "an empty literal type",
        conditions("${runtime.newCondition({type: '', status: 'True'})}"),
        "condition.empty-type",
        [...CONDITIONS, 0],
        /must not be empty/,
      ],
      [
        "two conditions of the same literal type",
        conditions(
          "${runtime.newCondition({type: 'A', status: 'True'})}",
          "${true ? runtime.newCondition({type: 'A', status: 'False'}) : runtime.newCondition({type: 'B', status: 'True'})}",
        ),
        "condition.duplicate-type",
        [...CONDITIONS, 1],
        /"A" is already declared by conditions\[0\]/,
      ],
      [
        "runtime.condition(schema, T) of an author type",
        conditions("${runtime.newCondition({type: 'B', status: runtime.condition(schema, 'A').status})}"),
        "condition.not-builtin",
        [...CONDITIONS, 0],
        /"A" is not one of Ready, InstanceManaged, GraphResolved, ResourcesReady/,
      ],
      [
        "a condition that does not type-check",
        conditions("${runtime.newCondition({type: 'A', status: nothere.status})}"),
        "expr.type-error",
        [...CONDITIONS, 0],
        /nothere/,
      ],
    ];
  for (const [what, change, code, path, message] of cases) {
    it(`reports ${what}`, () => {
      const result = compileVariant(change);
      const issue = result.issues.find((i) => i.code === code);
      assert.ok(issue, `no ${code} in ${JSON.stringify(result.issues.map((i) => `${i.code}: ${i.message}`))}`);
      assert.equal(issue.severity, "error");
      assert.deepEqual(issue.path, path);
      assert.match(issue.message, message);
      assert.equal(result.graph, undefined);
    });
  }

  const accepted: [what: string, change: (rgd: Rgd) => void][] = [
    [
      "an iterator used in metadata.namespace of a namespaced kind",
      collection([{ region: "${schema.spec.regions}" }], { name: "${schema.spec.name}", namespace: "${region}" }),
    ],
    [
      "two iterators in one name",
      collection([{ region: "${schema.spec.regions}" }, { tier: "${['a', 'b']}" }], {
        name: "${schema.spec.name}-${region}-${tier}",
      }),
    ],
    [
      "literal, computed, listed and built-in-reading conditions",
      conditions(
        "${runtime.newCondition({type: 'WebReady', status: deploy.status.?availableReplicas.orValue(0) > 0 ? 'True' : 'False', reason: 'Replicas', message: 'replicas available'})}",
        "${[runtime.newCondition({type: 'Listed', status: 'Unknown'})]}",
        "${cms.map(c, runtime.newCondition({type: 'Region-' + c.metadata.name, status: 'True'}))}",
        "${runtime.newCondition({type: 'Mirror', status: runtime.condition(schema, 'Ready').status})}",
        "${runtime.newCondition({type: 'DeployAvailable', status: runtime.condition(deploy, 'Available').status})}",
      ),
    ],
  ];
  for (const [what, change] of accepted) {
    it(`accepts ${what}`, () => {
      const result = compileVariant(change);
      assert.deepEqual(
        result.issues.filter((i) => i.severity === "error"),
        [],
      );
      assert.ok(result.graph);
    });
  }

  it("keeps the condition texts on the graph with kro's bare keys quoted", () => {
    const texts = [
      "${runtime.newCondition({type: 'A', status: 'True'})}",
      "${cms.map(c, runtime.newCondition({type: 'B-' + c.metadata.name, status: 'False', message: c.metadata.name}))}",
    ];
    assert.deepEqual(compileVariant(conditions(...texts)).graph?.conditions, [
      "${runtime.newCondition({\"type\": 'A', \"status\": 'True'})}",
      '${cms.map(c, runtime.newCondition({"type": \'B-\' + c.metadata.name, "status": \'False\', "message": c.metadata.name}))}',
    ]);
  });
});

describe("compileRgd: unbounded cost is a warning with a path", () => {
  it("warns on a comprehension over a list without maxItems and still compiles", () => {
    const result = compileVariant((r) => {
      r.spec.schema.status.names =
        "${cms.size() > 0 ? schema.spec.regions.map(x, x + '-web') : []}"; /* a status field must read a resource (kro) */
    });
    assert.ok(result.graph);
    const warnings = result.issues.filter((i) => i.code === UNBOUNDED_COST_CODE);
    const [warning, ...more] = warnings;
    assert.ok(warning);
    assert.deepEqual(more, []);
    assert.equal(warning.severity, "warning");
    assert.deepEqual(warning.path, ["spec", "schema", "status", "names"]);
  });

  it("does not warn when the list has maxItems", () => {
    const result = compileVariant((r) => {
      r.spec.schema.spec.regions = "[]string | default=[] maxItems=5";
      r.spec.schema.status.names =
        "${cms.size() > 0 ? schema.spec.regions.map(x, x + '-web') : []}"; /* a status field must read a resource (kro) */
    });
    assert.ok(result.graph);
    assert.deepEqual(
      result.issues.filter((i) => i.code === UNBOUNDED_COST_CODE),
      [],
    );
  });

  it("treats a forEach collection as bounded (at most MAX_COLLECTION_SIZE items) but not a selector's matches", () => {
    const overCollection = compileVariant((r) => {
      r.spec.schema.status.names = "${cms.map(c, c.metadata.name)}";
    });
    assert.ok(overCollection.graph);
    assert.deepEqual(
      overCollection.issues.filter((i) => i.code === UNBOUNDED_COST_CODE),
      [],
    );
    const overSelector = compileVariant((r) => {
      (r.spec.resources as unknown[]).push({
        id: "peers",
        externalRef: { apiVersion: "v1", kind: "Secret", metadata: { selector: { matchLabels: { team: "a" } } } },
      });
      r.spec.schema.status.names = "${peers.map(p, p.metadata.name)}";
    });
    assert.ok(overSelector.graph);
    assert.deepEqual(
      overSelector.issues.filter((i) => i.code === UNBOUNDED_COST_CODE).map((i) => i.path),
      [["spec", "schema", "status", "names"]],
    );
  });

  it("warns inside templates too, at the template field", () => {
    const result = compileVariant((r) => {
      const svc = r.spec.resources[1];
      assert.ok(svc);
      svc.template.metadata.annotations = { regions: "${schema.spec.regions.filter(x, x != '').join(',')}" };
    });
    assert.ok(result.graph);
    const [warning] = result.issues.filter((i) => i.code === UNBOUNDED_COST_CODE);
    assert.ok(warning);
    assert.deepEqual(warning.path, ["spec", "resources", 1, "template", "metadata", "annotations", "regions"]);
  });
});
