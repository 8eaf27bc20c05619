import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { loadYaml } from "../../api/index.js";
import { compileRgd, type CompiledGraph, type CompiledNode } from "../../graph/index.js";
import type { EvaluationScope, Outcome } from "../dialect.js";
import type { KubeJson } from "../types.js";
import { templateEvaluator as evaluator } from "./evaluator.js";

const root = new URL("../../../../", import.meta.url);
const readExample = (name: string): KubeJson => {
  const [doc] = loadYaml(name, readFileSync(new URL(`examples/nginx/${name}`, root), "utf8")).documents;
  assert.ok(doc);
  return doc.value as KubeJson;
};

function compiled(rgd: unknown): CompiledGraph {
  const result = compileRgd(rgd);
  assert.deepEqual(
    result.issues.filter((i) => i.severity === "error"),
    [],
  );
  assert.ok(result.graph);
  return result.graph;
}

/** A template RGD with the given children (and status mappings). */
function graphOf(children: unknown[], statusMappings?: unknown[]): CompiledGraph {
  return compiled({
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "t" },
    spec: {
      resourceKind: { group: "example.com", version: "v1", kind: "App" },
      childResources: children,
      ...(statusMappings ? { statusMappings } : {}),
    },
  });
}

function nodeOf(graph: CompiledGraph, id: string): CompiledNode {
  const node = graph.nodes.find((n) => n.id === id);
  assert.ok(node, `no node ${id}`);
  return node;
}

const instance = (spec: unknown, extra: KubeJson = {}): KubeJson => ({
  apiVersion: "example.com/v1",
  kind: "App",
  metadata: { name: "demo", namespace: "team-a", generation: 3 },
  spec,
  status: { secret: "not visible" },
  ...extra,
});

function scopeOf(inst: KubeJson, observed: Record<string, KubeJson[]> = {}, excluded: string[] = []): EvaluationScope {
  return { instance: inst, observed: new Map(Object.entries(observed)), excluded: new Set(excluded) };
}

function value<T>(outcome: Outcome<T>): T {
  assert.ok(outcome.ok, `expected ok, got ${JSON.stringify(outcome)}`);
  return outcome.value;
}

function errorOf(outcome: Outcome<unknown>): string {
  assert.ok(!outcome.ok && outcome.error !== undefined, `expected an error, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

const child = (over: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  nameTemplate: "{{.parent.metadata.name}}-cm",
  template: "data:\n  a: b\n",
  ...over,
});

describe("template dialect: the seed's NginxApp (examples/nginx)", () => {
  const graph = compiled(readExample("nginxapp-rgd.yaml"));
  const nginx: KubeJson = { ...readExample("my-nginx.yaml"), metadata: { name: "my-nginx", namespace: "default" } };
  const scope = scopeOf(nginx);

  it("renders the Deployment", () => {
    assert.deepEqual(value(evaluator.renderDesired(nodeOf(graph, "deployment"), scope)), [
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "my-nginx", namespace: "default", labels: { app: "my-nginx" } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "my-nginx" } },
          template: {
            metadata: { labels: { app: "my-nginx" } },
            spec: {
              containers: [
                {
                  name: "nginx",
                  image: "nginx:1.21.0",
                  imagePullPolicy: "IfNotPresent",
                  ports: [{ containerPort: 80 }],
                  resources: { limits: { cpu: "100m", memory: "128Mi" }, requests: { cpu: "50m", memory: "64Mi" } },
                },
              ],
            },
          },
        },
      },
    ]);
  });

  it("renders the Service", () => {
    assert.deepEqual(value(evaluator.renderDesired(nodeOf(graph, "service"), scope)), [
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "my-nginx", namespace: "default", labels: { app: "my-nginx" } },
        spec: { selector: { app: "my-nginx" }, ports: [{ port: 80, targetPort: 80 }], type: "ClusterIP" },
      },
    ]);
  });

  it("renders the Ingress, included while spec.ingress.enabled is true", () => {
    const ingress = nodeOf(graph, "ingress");
    assert.equal(value(evaluator.isIncluded(ingress, scope)), true);
    assert.deepEqual(value(evaluator.renderDesired(ingress, scope)), [
      {
        apiVersion: "networking.k8s.io/v1",
        kind: "Ingress",
        metadata: { name: "my-nginx", namespace: "default", labels: { app: "my-nginx" } },
        spec: {
          rules: [
            {
              host: "example.com",
              http: {
                paths: [
                  { path: "/", pathType: "Prefix", backend: { service: { name: "my-nginx", port: { number: 80 } } } },
                ],
              },
            },
          ],
        },
      },
    ]);
  });

  it("excludes the Ingress when enabled is false or missing", () => {
    const ingress = nodeOf(graph, "ingress");
    const spec = nginx.spec as Record<string, unknown>;
    assert.equal(
      value(evaluator.isIncluded(ingress, scopeOf({ ...nginx, spec: { ...spec, ingress: { enabled: false } } }))),
      false,
    );
    assert.equal(
      value(evaluator.isIncluded(ingress, scopeOf({ ...nginx, spec: { ...spec, ingress: undefined } }))),
      false,
    );
    assert.equal(value(evaluator.isIncluded(nodeOf(graph, "deployment"), scope)), true);
  });

  it("projects availableReplicas, readyReplicas, serviceIP and Ready from Available", () => {
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "my-nginx" },
      status: {
        availableReplicas: 2,
        readyReplicas: 2,
        conditions: [
          { type: "Progressing", status: "True" },
          {
            type: "Available",
            status: "True",
            reason: "MinimumReplicasAvailable",
            message: "Deployment has minimum availability.",
          },
        ],
      },
    };
    const service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "my-nginx" },
      spec: { clusterIP: "10.96.0.12" },
    };
    const projected = evaluator.projectStatus(graph, scopeOf(nginx, { deployment: [deployment], service: [service] }));
    assert.deepEqual(projected, {
      fields: { availableReplicas: 2, readyReplicas: 2, serviceIP: "10.96.0.12" },
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "MinimumReplicasAvailable",
          message: "Deployment has minimum availability.",
        },
      ],
      replacesBuiltins: false,
      errors: [],
    });
  });

  it("reports Ready Unknown while the Deployment or its condition is missing, and leaves unset fields out", () => {
    const before = evaluator.projectStatus(graph, scopeOf(nginx));
    assert.deepEqual(before.fields, {});
    assert.deepEqual(
      before.conditions.map((c) => [c.type, c.status, c.reason]),
      [["Ready", "Unknown", "ChildConditionMissing"]],
    );
    const fresh = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "my-nginx" },
      status: { readyReplicas: 1 },
    };
    const during = evaluator.projectStatus(graph, scopeOf(nginx, { deployment: [fresh] }));
    assert.deepEqual(during.fields, { readyReplicas: 1 });
    const [ready] = during.conditions;
    assert.ok(ready);
    assert.deepEqual([ready.status, ready.reason], ["Unknown", "ChildConditionMissing"]);
    assert.match(ready.message ?? "", /Deployment my-nginx has no Available condition/);
  });
});

describe("template dialect: rendering rules", () => {
  const cases: { name: string; child: Record<string, unknown>; spec?: unknown; expected: unknown }[] = [
    {
      name: "parent namespace and app label are added",
      child: {},
      expected: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "demo-cm", namespace: "team-a", labels: { app: "demo" } },
        data: { a: "b" },
      },
    },
    {
      name: "template labels and annotations are merged",
      child: { template: "metadata:\n  labels:\n    tier: web\n  annotations:\n    note: x\ndata: {}\n" },
      expected: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: "demo-cm",
          namespace: "team-a",
          labels: { app: "demo", tier: "web" },
          annotations: { note: "x" },
        },
        data: {},
      },
    },
    {
      name: "an app label in the template wins",
      child: { template: "metadata:\n  labels:\n    app: custom\n" },
      expected: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "demo-cm", namespace: "team-a", labels: { app: "custom" } },
      },
    },
    {
      name: "nameTemplate wins over metadata.name and the parent's namespace over metadata.namespace",
      child: { template: "metadata:\n  name: other\n  namespace: elsewhere\n" },
      expected: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "demo-cm", namespace: "team-a", labels: { app: "demo" } },
      },
    },
    {
      name: "an empty body gives a bare object",
      child: { template: "{{/* nothing */}}\n" },
      expected: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "demo-cm", namespace: "team-a", labels: { app: "demo" } },
      },
    },
    {
      name: "integers print as Go int64 and Sprig works",
      child: { template: "data:\n  num: {{ add .parent.spec.n 1 | quote }}\n  up: {{ upper .parent.spec.s }}\n" },
      spec: { n: 41, s: "x" },
      expected: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "demo-cm", namespace: "team-a", labels: { app: "demo" } },
        data: { num: "42", up: "X" },
      },
    },
    {
      name: "status is not visible to templates",
      child: { template: "data:\n  s: {{ .parent.status }}\n" },
      expected: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "demo-cm", namespace: "team-a", labels: { app: "demo" } },
        data: { s: "<no value>" },
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const graph = graphOf([child(c.child)]);
      assert.deepEqual(value(evaluator.renderDesired(nodeOf(graph, "configMap"), scopeOf(instance(c.spec ?? {})))), [
        c.expected,
      ]);
    });
  }

  it("omits the namespace of cluster-scoped kinds", () => {
    const graph = graphOf([child({})]);
    const node = { ...nodeOf(graph, "configMap"), namespaced: false };
    const [object] = value(evaluator.renderDesired(node, scopeOf(instance({}))));
    assert.deepEqual((object?.metadata as Record<string, unknown>).namespace, undefined);
  });

  const failures: { name: string; child: Record<string, unknown>; spec?: unknown; error: RegExp }[] = [
    {
      name: "execution error names child, line and column",
      child: { template: "data:\n  a: {{ .parent.spec.x.y }}\n" },
      spec: { x: null },
      error:
        /^child "configMap": template failed at line 2, column 16: template: configMap\.template:2:15: executing "configMap\.template" at <\.parent\.spec\.x\.y>: nil pointer evaluating interface \{\}\.y$/,
    },
    {
      name: "YAML error names child and shows the rendered line",
      child: { template: "data:\n  a: {{ .parent.spec.v }}\n b: 2\n" },
      spec: { v: 1 },
      error:
        /^child "configMap": the rendered template is not valid YAML at line 3 of the rendered template: All mapping items must start at the same column\n {2}3 \| {2}b: 2$/,
    },
    {
      name: "YAML error at the end shows the last non-blank line",
      child: { template: "data:\n  a: [{{ .parent.spec.v }}\n" },
      spec: { v: 1 },
      error:
        /^child "configMap": the rendered template is not valid YAML at line 3 of the rendered template: .*\n {2}2 \| {3}a: \[1$/,
    },
    { name: "a list body", child: { template: "- a\n" }, error: /must be a YAML map/ },
    { name: "several documents", child: { template: "a: 1\n---\nb: 2\n" }, error: /2 YAML documents/ },
    {
      name: "apiVersion cannot be overridden",
      child: { template: "apiVersion: v2\n" },
      error: /sets apiVersion "v2", but the child is declared as v1/,
    },
    { name: "kind cannot be overridden", child: { template: "kind: Secret\n" }, error: /sets kind "Secret"/ },
    {
      name: "an empty name",
      child: { nameTemplate: "{{ .parent.spec.missing }}" },
      error: /nameTemplate rendered "<no value>", which is no object name/,
    },
    {
      name: "fail from Sprig",
      child: { template: '{{ fail "no way" }}' },
      error: /child "configMap": template failed at line 1, column 4: .*no way/,
    },
  ];
  for (const f of failures) {
    it(`error: ${f.name}`, () => {
      const graph = graphOf([child(f.child)]);
      assert.match(
        errorOf(evaluator.renderDesired(nodeOf(graph, "configMap"), scopeOf(instance(f.spec ?? {})))),
        f.error,
      );
    });
  }
});

describe("template dialect: condition, readiness and .children", () => {
  const conditions: [string, unknown, boolean | RegExp][] = [
    ["{{ .parent.spec.on }}", true, true],
    ["{{ .parent.spec.on }}", "TRUE", true],
    ["  {{ .parent.spec.on }}\n", "True", true],
    ["{{ .parent.spec.on }}", false, false],
    ["{{ .parent.spec.on }}", "", false],
    ["{{ .parent.spec.missing }}", true, false],
    ["{{ .parent.spec.on }}", "yes", /^child "configMap": condition rendered "yes"; it must render true or false/],
  ];
  for (const [condition, on, expected] of conditions) {
    it(`condition ${JSON.stringify(condition)} with on=${JSON.stringify(on)} → ${String(expected)}`, () => {
      const node = nodeOf(graphOf([child({ condition })]), "configMap");
      const outcome = evaluator.isIncluded(node, scopeOf(instance({ on })));
      if (expected instanceof RegExp) assert.match(errorOf(outcome), expected);
      else assert.equal(value(outcome), expected);
    });
  }

  it("readyWhen: the seed's availableReplicas check", () => {
    const node = nodeOf(
      graphOf([
        child({
          readyWhen: [
            "{{ ge (.self.status.availableReplicas | default 0) 1 }}",
            '{{ eq .self.metadata.name "demo-cm" }}',
          ],
        }),
      ]),
      "configMap",
    );
    const scope = scopeOf(instance({}));
    const named = { metadata: { name: "demo-cm" } };
    assert.equal(value(evaluator.isReady(node, named, scope)), false);
    assert.equal(value(evaluator.isReady(node, { ...named, status: { availableReplicas: 1 } }, scope)), true);
    assert.equal(
      value(evaluator.isReady(node, { metadata: { name: "x" }, status: { availableReplicas: 1 } }, scope)),
      false,
    );
  });

  it("readyWhen: no entries means ready; a failing template is pending readiness; other text is an error", () => {
    const scope = scopeOf(instance({}));
    assert.equal(value(evaluator.isReady(nodeOf(graphOf([child({})]), "configMap"), {}, scope)), true);
    const failing = evaluator.isReady(
      nodeOf(graphOf([child({ readyWhen: ["{{ .self.status.x.y }}"] })]), "configMap"),
      { status: { x: null } },
      scope,
    );
    assert.ok(!failing.ok && failing.pending?.kind === "readiness");
    assert.match(failing.pending.message, /readyWhen\[0\] failed at line 1/);
    assert.match(
      errorOf(evaluator.isReady(nodeOf(graphOf([child({ readyWhen: ["ok"] })]), "configMap"), {}, scope)),
      /readyWhen\[0\] rendered "ok"/,
    );
  });

  it("reads another child's observed object; pending until it is observed", () => {
    const graph = graphOf([
      child({ id: "app", template: "data:\n  ip: {{ .children.svc.spec.clusterIP }}\n" }),
      {
        apiVersion: "v1",
        kind: "Service",
        id: "svc",
        nameTemplate: "{{.parent.metadata.name}}",
        template: "spec: {}\n",
      },
    ]);
    const app = nodeOf(graph, "app");
    assert.deepEqual(app.dependencies, ["svc"]);
    const pending = evaluator.renderDesired(app, scopeOf(instance({})));
    assert.ok(!pending.ok && pending.pending !== undefined);
    assert.deepEqual(
      [pending.pending.kind, pending.pending.missingPath, pending.pending.waitingOn],
      ["data-pending", "svc", ["svc"]],
    );
    const [object] = value(
      evaluator.renderDesired(app, scopeOf(instance({}), { svc: [{ spec: { clusterIP: "10.0.0.7" } }] })),
    );
    assert.deepEqual(object?.data, { ip: "10.0.0.7" });
  });
});

describe("template dialect: status mappings", () => {
  const graph = graphOf(
    [
      { apiVersion: "v1", kind: "Service", id: "a", nameTemplate: "{{.parent.metadata.name}}-a", template: "" },
      { apiVersion: "v1", kind: "Service", id: "b", nameTemplate: "{{.parent.metadata.name}}-b", template: "" },
    ],
    [
      {
        childResource: { kind: "Service", name: "{{.parent.metadata.name}}-b" },
        conditions: [{ type: "Serving", mapping: { type: "Ready" } }],
        fieldMappings: [
          { child: "status.loadBalancer.ingress[0].ip", parent: "status.endpoint.ip" },
          { child: "spec.ports[1].port", parent: "status.port" },
        ],
      },
    ],
  );
  const a = {
    kind: "Service",
    metadata: { name: "demo-a" },
    spec: { ports: [{ port: 1 }, { port: 2 }] },
    status: { loadBalancer: { ingress: [{ ip: "1.1.1.1" }] } },
  };
  const b = {
    kind: "Service",
    metadata: { name: "demo-b" },
    spec: { ports: [{ port: 3 }, { port: 4 }] },
    status: {
      loadBalancer: { ingress: [{ ip: "2.2.2.2" }] },
      conditions: [{ type: "Serving", status: "False", reason: "NoEndpoints", message: "none" }],
    },
  };

  it("selects the child by its name template and maps indexed paths", () => {
    const projected = evaluator.projectStatus(graph, scopeOf(instance({}), { a: [a], b: [b] }));
    assert.deepEqual(projected.fields, { endpoint: { ip: "2.2.2.2" }, port: 4 });
    assert.deepEqual(projected.conditions, [
      { type: "Ready", status: "False", reason: "NoEndpoints", message: "none" },
    ]);
  });

  it("a missing source removes the target; an unselected child maps nothing", () => {
    const noLb = { ...b, status: {} };
    assert.deepEqual(evaluator.projectStatus(graph, scopeOf(instance({}), { a: [a], b: [noLb] })).fields, { port: 4 });
    const onlyA = evaluator.projectStatus(graph, scopeOf(instance({}), { a: [a] }));
    assert.deepEqual(onlyA.fields, {});
    assert.deepEqual(
      onlyA.conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [["Ready", "Unknown", "ChildConditionMissing", "Service demo-b does not exist (yet)"]],
    );
  });

  it("an excluded child is not selected", () => {
    assert.deepEqual(evaluator.projectStatus(graph, scopeOf(instance({}), { a: [a], b: [b] }, ["b"])).fields, {});
  });
});

describe("template dialect: arbitrary instances never crash the evaluator", () => {
  const graph = compiled(readExample("nginxapp-rgd.yaml"));

  it("every node renders, is excluded, or fails with a message naming the child", () => {
    fc.assert(
      fc.property(fc.anything(), fc.dictionary(fc.string(), fc.anything()), (spec, metadataExtra) => {
        const scope = scopeOf({
          apiVersion: "kro.example.com/v1",
          kind: "NginxApp",
          metadata: { ...metadataExtra, name: "n", namespace: "d" },
          spec,
        });
        for (const node of graph.nodes) {
          for (const outcome of [evaluator.isIncluded(node, scope), evaluator.renderDesired(node, scope)]) {
            if (!outcome.ok && outcome.error !== undefined)
              assert.match(outcome.error, new RegExp(`^child "${node.id}": `));
          }
        }
        const projected = evaluator.projectStatus(graph, scope);
        assert.equal(projected.errors.length, 0);
      }),
      { numRuns: 300 },
    );
  });

  it('a "__proto__" key in the instance is a key, not a prototype (found by the property above)', () => {
    const metadata = { ...(JSON.parse('{"__proto__": {"a": 1}}') as KubeJson), name: "n", namespace: "d" };
    const scope = scopeOf({ apiVersion: "kro.example.com/v1", kind: "NginxApp", metadata, spec: {} });
    for (const node of graph.nodes) assert.ok(evaluator.renderDesired(node, scope).ok, node.id);
    assert.deepEqual(evaluator.projectStatus(graph, scope).errors, []);
  });
});
