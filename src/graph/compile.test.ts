import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { loadYaml } from "../api/index.js";
import { createKroCelEnvironment } from "../expr/index.js";
import { compileRgd } from "./compile.js";
import { builtinSchemaResolver, type BuiltinSchemaBundle } from "./schema-resolver.js";

const root = new URL("../../../", import.meta.url);
const bundle = JSON.parse(
  gunzipSync(readFileSync(new URL("schemas/kubernetes/1.33.json.gz", root))).toString("utf8"),
) as BuiltinSchemaBundle;
const resolver = builtinSchemaResolver(bundle);
const env = createKroCelEnvironment({ enableRuntime: true });
const webapp = loadYaml("webapp.yaml", readFileSync(new URL("test/fixtures/rgd/webapp.yaml", root), "utf8"))
  .documents[0]?.value as Record<string, unknown>;

/** The worked example with one change applied to a deep copy. */
function variant(
  change: (rgd: { spec: { schema: Record<string, unknown>; resources: Record<string, unknown>[] } }) => void,
): unknown {
  const copy = structuredClone(webapp) as {
    spec: { schema: Record<string, unknown>; resources: Record<string, unknown>[] };
  };
  change(copy);
  return copy;
}

const compile = (rgd: unknown) => compileRgd(rgd, { resolver, env });

/** Reads a nested value without trusting its shape. */
function dig(value: unknown, ...path: (string | number)[]): unknown {
  let node = value;
  for (const key of path)
    node = typeof node === "object" && node !== null ? (node as Record<string | number, unknown>)[key] : undefined;
  return node;
}

describe("compileRgd: the worked example (docs/reference/kro-reference.md §2.7)", () => {
  const result = compile(webapp);

  it("compiles without issues", () => {
    assert.deepEqual(
      result.issues.filter((i) => i.severity === "error"),
      [],
    );
    assert.ok(result.graph);
  });

  it("derives dependencies, topological order and waves", () => {
    const graph = result.graph;
    assert.ok(graph);
    assert.deepEqual(graph.topologicalOrder, ["deploy", "svc", "ing", "cms"]);
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    assert.deepEqual(byId.get("svc")?.dependencies, ["deploy"]);
    assert.deepEqual(byId.get("ing")?.dependencies, ["svc"]);
    assert.deepEqual(byId.get("cms")?.dependencies, []);
    assert.deepEqual(Object.fromEntries(graph.nodes.map((n) => [n.id, n.wave])), { deploy: 1, svc: 2, ing: 3, cms: 3 });
    assert.equal(byId.get("cms")?.type, "collection");
    assert.equal(byId.get("deploy")?.namespaced, true);
  });

  it("synthesises the CRD with spec defaults and inferred status types", () => {
    const crd: unknown = result.graph?.crd;
    const schema = ["spec", "versions", 0, "schema", "openAPIV3Schema", "properties"];
    assert.equal(dig(crd, "metadata", "name"), "webapps.kro.run");
    assert.deepEqual(dig(crd, ...schema, "spec", "required"), ["name"]);
    assert.deepEqual(dig(crd, ...schema, "spec", "properties", "replicas"), {
      type: "integer",
      default: 2,
      minimum: 1,
    });
    assert.equal(dig(crd, ...schema, "status", "properties", "available", "type"), "integer");
    assert.equal(dig(crd, ...schema, "status", "properties", "url", "type"), "string");
    assert.notEqual(dig(crd, ...schema, "status", "properties", "state"), undefined);
    assert.notEqual(dig(crd, ...schema, "status", "properties", "conditions"), undefined);
  });

  it("is frozen", () => {
    assert.ok(Object.isFrozen(result.graph));
    assert.ok(Object.isFrozen(result.graph?.nodes[0]?.dependencies));
  });
});

describe("compileRgd: errors carry paths and all are reported", () => {
  const cases: [
    what: string,
    change: Parameters<typeof variant>[0],
    code: string,
    path: (string | number)[],
    message: RegExp,
  ][] = [
    [
      "a cycle",
      (r) => {
        (r.spec.resources[0] as { template: { metadata: Record<string, unknown> } }).template.metadata.name =
          "${svc.metadata.name}";
      },
      "graph.cycle",
      ["spec", "resources"],
      /graph contains a cycle: deploy -> svc -> deploy/,
    ],
    [
      "a self reference",
      (r) => {
        (r.spec.resources[1] as { template: { metadata: Record<string, unknown> } }).template.metadata.name =
          "${svc.spec.clusterIP}";
      },
      "graph.self-reference",
      ["spec", "resources", 1, "template", "metadata", "name"],
      /self references are not allowed/,
    ],
    [
      "an unknown identifier",
      (r) => {
        (r.spec.resources[1] as { template: { metadata: Record<string, unknown> } }).template.metadata.name =
          "${nothere.metadata.name}";
      },
      "expr.type-error",
      ["spec", "resources", 1, "template", "metadata", "name"],
      /nothere/,
    ],
    [
      "a type mismatch",
      (r) => {
        (r.spec.resources[0] as { template: { spec: Record<string, unknown> } }).template.spec.replicas =
          "${schema.spec.name}";
      },
      "expr.type-mismatch",
      ["spec", "resources", 0, "template", "spec", "replicas"],
      /returns type "string" but expected "integer|int"/,
    ],
    [
      "a duplicate id",
      (r) => {
        r.spec.resources[3] = { ...r.spec.resources[3], id: "svc" };
      },
      "rgd.id-duplicate",
      ["spec", "resources", 3, "id"],
      /duplicate resource id "svc"/,
    ],
    [
      "a literal status field",
      (r) => {
        (r.spec.schema.status as Record<string, unknown>).fixed = "constant";
      },
      "rgd.status-literal",
      ["spec", "schema", "status", "fixed"],
      /status fields without expressions are not supported/,
    ],
    [
      "a reserved label",
      (r) => {
        (r.spec.resources[0] as { template: { metadata: Record<string, unknown> } }).template.metadata.labels = {
          "kro.run/owned": "x",
        };
      },
      "rgd.reserved-label",
      ["spec", "resources", 0, "template", "metadata", "labels", "kro.run/owned"],
      /reserved for kro/,
    ],
    [
      "a bad SimpleSchema marker",
      (r) => {
        (r.spec.schema.spec as Record<string, unknown>).replicas = "integer | colour=blue";
      },
      "schema.unknown-marker",
      ["spec", "schema", "spec", "replicas"],
      /colour/,
    ],
    [
      "a readyWhen on another resource",
      (r) => {
        r.spec.resources[1] = { ...r.spec.resources[1], readyWhen: ["${deploy.status.availableReplicas > 0}"] };
      },
      "graph.readywhen-reference",
      ["spec", "resources", 1, "readyWhen", 0],
      /readyWhen may only reference "svc"/,
    ],
    [
      "includeWhen that is not boolean",
      (r) => {
        r.spec.resources[2] = { ...r.spec.resources[2], includeWhen: ["${schema.spec.name}"] };
      },
      "expr.type-mismatch",
      ["spec", "resources", 2, "includeWhen", 0],
      /expected "boolean|bool"/,
    ],
  ];
  for (const [what, change, code, path, message] of cases) {
    it(`reports ${what}`, () => {
      const result = compile(variant(change));
      assert.equal(result.graph, undefined);
      const issue = result.issues.find((i) => i.code === code);
      assert.ok(issue, `no ${code} in ${JSON.stringify(result.issues.map((i) => `${i.code}: ${i.message}`))}`);
      assert.deepEqual(issue.path, path);
      assert.match(issue.message, message);
    });
  }

  it("reports several problems at once", () => {
    const result = compile(
      variant((r) => {
        (r.spec.schema.spec as Record<string, unknown>).replicas = "integer | colour=blue";
        (r.spec.schema.status as Record<string, unknown>).fixed = "constant";
      }),
    );
    const codes = new Set(result.issues.map((i) => i.code));
    assert.ok(codes.has("schema.unknown-marker") && codes.has("rgd.status-literal"));
  });

  it("rejects mixed dialects and sends resourceKind RGDs to the template-dialect compiler", () => {
    assert.equal(
      compile(
        variant((r) => {
          (r.spec as Record<string, unknown>).childResources = [];
        }),
      ).issues[0]?.code,
      "rgd.mixed-dialects",
    );
    const template = compileRgd({
      apiVersion: "kro.run/v1alpha1",
      kind: "ResourceGraphDefinition",
      spec: { resourceKind: { kind: "X" } },
    });
    assert.deepEqual(
      template.issues.map((i) => i.code),
      ["rgd.invalid-group", "rgd.api-version", "rgd.field-missing"],
    );
  });
});
