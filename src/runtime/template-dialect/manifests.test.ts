import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRgd, type CompiledGraph } from "../../graph/index.js";
import { evaluateInstance } from "../evaluate.js";
import { identityOf } from "../identity.js";
import { createMemoryLookup } from "../memory-lookup.js";
import { prunePlan } from "../prune.js";
import type { KubeJson } from "../types.js";
import { parseManifestStream, renderChartOutputs, renderChartTemplate } from "./manifests.js";
import type { ChartRenderAnswer } from "../types.js";

const CONFIGS = [
  "{{- range .Values.names }}",
  "---",
  "apiVersion: v1",
  "kind: ConfigMap",
  "metadata:",
  "  name: {{ $.Release.Name }}-{{ . }}",
  "data: {v: {{ $.Values.v | quote }}}",
  "{{- end }}",
  "{{- if .Values.secret }}",
  "---",
  "apiVersion: v1",
  "kind: Secret",
  "metadata:",
  "  name: {{ .Release.Name }}-s",
  "{{- end }}",
].join("\n");

function rgd(
  children: Record<string, unknown>[],
  templates: Record<string, string> = { "c/templates/cfg.yaml": CONFIGS },
): Record<string, unknown> {
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "g" },
    spec: {
      resourceKind: { group: "t.example.com", version: "v1", kind: "CApp" },
      helm: {
        templates,
        charts: [{ templatePrefix: "c/", valuesPath: [], metadata: { name: "c", version: "1.0.0" }, files: {} }],
      },
      childResources: children,
    },
  };
}

const cm = { id: "configs", apiVersion: "v1", kind: "ConfigMap", manifests: "c/templates/cfg.yaml" };
const secret = { id: "secret", apiVersion: "v1", kind: "Secret", manifests: "c/templates/cfg.yaml" };

function compile(doc: Record<string, unknown>): CompiledGraph {
  const result = compileRgd(doc);
  assert.ok(result.graph, JSON.stringify(result.issues));
  return result.graph;
}

const instance = (spec: Record<string, unknown>): KubeJson => ({
  apiVersion: "t.example.com/v1",
  kind: "CApp",
  metadata: { name: "rel", namespace: "ns", uid: "u1" },
  spec,
});
const names = (objects: readonly KubeJson[]) =>
  objects.map((o) => `${String(o.kind)}/${(o.metadata as { name: string }).name}`);

describe("manifests children (a chart template's objects of one kind)", () => {
  it("render zero, one or many objects per template, each child its own kind", () => {
    const graph = compile(rgd([cm, secret]));
    const none = evaluateInstance(graph, instance({ names: [], secret: false }), createMemoryLookup());
    assert.deepEqual(names(none.apply), []);
    const many = evaluateInstance(
      graph,
      instance({ names: ["a", "b"], v: 1000000, secret: true }),
      createMemoryLookup(),
    );
    assert.deepEqual(names(many.apply).sort(), ["ConfigMap/rel-a", "ConfigMap/rel-b", "Secret/rel-s"]);
    const a = many.apply.find((o) => (o.metadata as { name: string }).name === "rel-a");
    assert.ok(a);
    assert.deepEqual(a.data, { v: "1e+06" }, "values are float64, as Helm reads them");
    assert.equal((a.metadata as { namespace?: string }).namespace, "ns", "the release namespace");
  });

  it("a render kept elsewhere is parsed once, whatever the instance's status (a status write re-parses no CRDs)", () => {
    const graph = compile(rgd([cm, secret]));
    const helm = graph.dialect === "template" ? graph.helm : undefined;
    assert.ok(helm);
    const first = instance({ names: ["a"], secret: true });
    // As the controller's worker answers are kept: by what the render reads, so the same outputs.
    let answer: ChartRenderAnswer | undefined;
    const render = (request: { helm: typeof helm; instance: KubeJson }): ChartRenderAnswer => {
      if (answer === undefined) {
        const outcome = renderChartOutputs(request.helm, request.instance);
        assert.ok(outcome.ok);
        answer = { ok: true, outputs: outcome.value, calls: [] };
      }
      return answer;
    };
    const parsedBefore = renderChartTemplate(helm, "c/templates/cfg.yaml", first, { render });
    const afterStatus = renderChartTemplate(
      helm,
      "c/templates/cfg.yaml",
      { ...first, status: { state: "IN_PROGRESS" } },
      { render },
    );
    assert.ok(parsedBefore.ok && afterStatus.ok);
    assert.equal(afterStatus.value, parsedBefore.value, "the same parsed documents, not parsed again");
  });

  it("takes the documents a render elsewhere parsed (a worker thread) instead of parsing the text again", () => {
    const graph = compile(rgd([cm]));
    const helm = graph.dialect === "template" ? graph.helm : undefined;
    assert.ok(helm);
    const outcome = renderChartOutputs(helm, instance({ names: ["a"] }));
    assert.ok(outcome.ok);
    const fromWorker = [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "parsed-in-the-worker" } }];
    const answer: ChartRenderAnswer = {
      ok: true,
      outputs: outcome.value,
      documents: new Map([["c/templates/cfg.yaml", { ok: true, value: fromWorker }]]),
      calls: [],
    };
    const documents = renderChartTemplate(helm, "c/templates/cfg.yaml", instance({ names: ["a"] }), {
      render: () => answer,
    });
    assert.ok(documents.ok);
    assert.equal(documents.value, fromWorker);
  });

  it("an object of a kind no child of its template owns is an error naming kind and template, never dropped", () => {
    const graph = compile(rgd([cm]));
    const evaluation = evaluateInstance(graph, instance({ names: ["a"], secret: true }), createMemoryLookup());
    const error = evaluation.nodes.find((n) => n.id === "configs")?.error ?? "";
    assert.match(error, /rendered a Secret \(v1\), a kind no child of this template owns/);
    assert.match(error, /c\/templates\/cfg\.yaml/);
  });

  it("objects that stop rendering are pruned; the others stay", () => {
    const graph = compile(rgd([cm, secret]));
    const before = evaluateInstance(graph, instance({ names: ["a", "b"], secret: true }), createMemoryLookup());
    const inventory = before.apply.flatMap((o, i) => {
      const identity = identityOf(o);
      return identity === undefined
        ? []
        : [
            {
              ...identity,
              uid: `u${i}`,
              nodeId: (o.metadata as { labels: Record<string, string> }).labels["kro.run/node-id"] ?? "",
            },
          ];
    });
    assert.equal(inventory.length, 3);
    const lookup = createMemoryLookup(before.apply);
    const after = evaluateInstance(graph, instance({ names: ["b"], secret: false }), lookup, { assumeReady: true });
    const pruned = prunePlan(graph, inventory, after)
      .flat()
      .map((e) => `${e.kind}/${e.name}`)
      .sort();
    assert.deepEqual(pruned, ["ConfigMap/rel-a", "Secret/rel-s"]);
  });

  it("compile errors name the field: no spec.helm, unknown template, nameTemplate beside manifests, one kind twice, template syntax", () => {
    const issues = (doc: Record<string, unknown>) =>
      compileRgd(doc)
        .issues.filter((i) => i.severity === "error")
        .map((i) => `${i.path.join(".")}: ${i.message}`);
    const noHelm = rgd([cm]);
    delete (noHelm.spec as Record<string, unknown>).helm;
    assert.match(issues(noHelm).join("\n"), /spec\.helm: child "configs" renders the manifests of template/);
    assert.match(
      issues(rgd([{ ...cm, manifests: "c/templates/nope.yaml" }])).join("\n"),
      /childResources\.0\.manifests: manifests names "c\/templates\/nope\.yaml"/,
    );
    assert.match(
      issues(rgd([{ ...cm, nameTemplate: "x" }])).join("\n"),
      /childResources\.0\.nameTemplate: nameTemplate does not apply to a manifests child/,
    );
    assert.match(issues(rgd([cm, { ...cm, id: "again" }])).join("\n"), /two children own the ConfigMap objects/);
    const broken = compileRgd(rgd([cm], { "c/templates/cfg.yaml": "a\n{{ if }}" })).issues.find(
      (i) => i.severity === "error",
    );
    assert.deepEqual(broken?.path, ["spec", "helm", "templates", "c/templates/cfg.yaml"]);
    assert.equal(broken.inner?.line, 2);
  });

  it("splits a stream like Helm: separators with spaces, empty and comment-only documents skipped", () => {
    const parsed = parseManifestStream(
      "t",
      "\n---   \n# only a comment\n---\napiVersion: v1\nkind: A\n---\n\n---\napiVersion: v1\nkind: B\n",
    );
    assert.ok(parsed.ok);
    assert.deepEqual(
      parsed.value.map((o) => o.kind),
      ["A", "B"],
    );
  });
});

describe("a failed chart render names the child whose template failed", () => {
  // The chart renders as one: every manifests child fails with it, and the pass's error is the
  // first failing node's. That must name b.yaml's child, not a.yaml's (evaluated first).
  const templates = {
    "c/templates/_helpers.tpl": '{{- define "port" }}{{ required "service.port is required" .Values.port }}{{ end }}',
    "c/templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
    "c/templates/b.yaml":
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  ports:\n  - port: {{ include "port" . }}\n',
  };
  const children = [
    { id: "aConfigMap", apiVersion: "v1", kind: "ConfigMap", manifests: "c/templates/a.yaml" },
    { id: "bService", apiVersion: "v1", kind: "Service", manifests: "c/templates/b.yaml" },
  ];

  it("an error raised in a helper that b.yaml includes is b.yaml's child's, on every child", () => {
    const evaluation = evaluateInstance(compile(rgd(children, templates)), instance({}), createMemoryLookup());
    assert.match(
      evaluation.error ?? "",
      /^child "bService": the chart failed to render \(c\/templates\/_helpers\.tpl:1\): .*service\.port is required/,
    );
    assert.deepEqual(
      evaluation.nodes.map((n) => [n.id, n.error?.startsWith('child "bService": the chart failed to render')]),
      [
        ["aConfigMap", true],
        ["bService", true],
      ],
    );
    assert.deepEqual(evaluation.apply, []);
  });

  it("a failing template no child renders is named as the template", () => {
    const evaluation = evaluateInstance(
      compile(rgd(children.slice(0, 1), { ...templates, "c/templates/b.yaml": '{{ fail "no b" }}' })),
      instance({}),
      createMemoryLookup(),
    );
    assert.match(evaluation.error ?? "", /^template "c\/templates\/b\.yaml": the chart failed to render .*no b/);
  });
});
