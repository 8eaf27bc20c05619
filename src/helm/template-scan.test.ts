import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { importHelmChart } from "./import-chart.js";
import { hookOf, staticKinds } from "./template-scan.js";
import type { ChartFiles } from "./types.js";

const enc = new TextEncoder();
const chart = (files: Record<string, string>): ChartFiles =>
  new Map(Object.entries(files).map(([k, v]) => [k, enc.encode(v)]));

const SWITCH = [
  '{{- if eq .Values.kind "StatefulSet" }}',
  "apiVersion: apps/v1",
  "kind: StatefulSet",
  "metadata: {name: app}",
  "spec: {serviceName: app}",
  "{{- else }}",
  "apiVersion: apps/v1beta2 # an older group version, to tell the lines apart",
  "kind: Deployment",
  "metadata: {name: app}",
  "{{- end }}",
].join("\n");

describe("template scanning: kinds", () => {
  it("a template that switches its kind with if/else yields every kind, each with the apiVersion written above it", () => {
    assert.deepEqual(staticKinds(SWITCH), {
      kinds: [
        { apiVersion: "apps/v1", kind: "StatefulSet" },
        { apiVersion: "apps/v1beta2", kind: "Deployment" },
      ],
      templated: [],
    });
  });

  it("a kind written before its apiVersion takes the one after it; a templated apiVersion is returned with its expression and line", () => {
    const text = [
      "kind: Role",
      "apiVersion: rbac.authorization.k8s.io/v1",
      "---",
      "apiVersion: {{ .Values.api }}",
      "kind: Deployment",
      "---",
      'apiVersion: "{{ include "x.apiVersion" . }}" # quoted',
      "kind: Widget",
      "---",
      "{{- if .Values.on }}",
      "apiVersion: apps/v1",
      "kind: StatefulSet",
      "{{- else }}",
      'apiVersion: {{ template "x.apiVersion" . }}',
      "kind: Gadget",
      "{{- end }}",
      "---",
      "kind: Thing",
    ].join("\n");
    assert.deepEqual(staticKinds(text), {
      kinds: [
        { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role" },
        { apiVersion: "apps/v1", kind: "StatefulSet" },
      ],
      templated: [
        { kind: "Deployment", line: 4, expression: "{{ .Values.api }}", known: "apps/v1" },
        { kind: "Widget", line: 7, expression: '"{{ include "x.apiVersion" . }}"' },
        { kind: "Gadget", line: 14, expression: '{{ template "x.apiVersion" . }}' },
        { kind: "Thing", line: 18 },
      ],
    });
  });

  it("importing a kind switch gives a child for each kind, so turning the option on renders", () => {
    const imported = importHelmChart(
      chart({
        "Chart.yaml": "apiVersion: v2\nname: kv\nversion: 0.1.0\n",
        "values.yaml": "kind: Deployment\n",
        "templates/workload.yaml": SWITCH.replace(
          "apps/v1beta2 # an older group version, to tell the lines apart",
          "apps/v1",
        ),
      }),
      { releaseName: "r", namespace: "ns" },
    );
    const children = (imported.rgd.spec as { childResources: { id: string; kind: string; manifests: string }[] })
      .childResources;
    assert.deepEqual(children.map((c) => [c.id, c.kind]).sort(), [
      ["workloadDeployment", "Deployment"],
      ["workloadStatefulSet", "StatefulSet"],
    ]);
  });
});

describe("template scanning: hooks", () => {
  it("reads quoted, plain and flow-map hook annotations, and returns a templated one as text", () => {
    assert.deepEqual(hookOf('metadata:\n  annotations:\n    "helm.sh/hook": "pre-install,pre-upgrade"\n'), {
      phase: "pre",
      hooks: ["pre-install", "pre-upgrade"],
      line: 3,
    });
    assert.deepEqual(hookOf("  annotations:\n    helm.sh/hook: post-install # after\n"), {
      phase: "post",
      hooks: ["post-install"],
      line: 2,
    });
    assert.deepEqual(hookOf('  annotations: {"helm.sh/hook": "test", "helm.sh/hook-weight": "1"}\n'), {
      phase: "test",
      hooks: ["test"],
      line: 1,
    });
    assert.deepEqual(hookOf('  annotations:\n    "helm.sh/hook": {{ $hookType }}\n'), {
      templated: "{{ $hookType }}",
      line: 2,
    });
    assert.deepEqual(hookOf('    helm.sh/hook: "{{ .Values.hook }}"\n'), { templated: "{{ .Values.hook }}", line: 1 });
    assert.equal(hookOf('    helm.sh/hook-weight: "1"\n'), undefined);
  });

  const hookChart = (values: string) =>
    chart({
      "Chart.yaml": "apiVersion: v2\nname: db\nversion: 0.1.0\n",
      "values.yaml": values,
      "templates/migrate.yaml": [
        "{{- $hookType := .Values.hook }}",
        "apiVersion: batch/v1",
        "kind: Job",
        "metadata:",
        "  name: migrate",
        "  annotations:",
        '    "helm.sh/hook": {{ $hookType }}',
        "spec: {template: {spec: {restartPolicy: Never, containers: [{name: m, image: i}]}}}",
      ].join("\n"),
      "templates/app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n",
    });
  type Child = { id: string; dependsOn?: string[] };
  const childrenOf = (files: ChartFiles) => {
    const imported = importHelmChart(files, { releaseName: "r", namespace: "ns" });
    return {
      children: (imported.rgd.spec as { childResources: Child[] }).childResources,
      warnings: imported.warnings.map((w) => w.message),
    };
  };

  it("a templated hook annotation is evaluated with the chart's values: a pre-install Job runs before the other objects", () => {
    const { children, warnings } = childrenOf(hookChart("hook: pre-install\n"));
    assert.deepEqual(children.map((c) => c.id).sort(), ["appConfigMap", "migrateJob"]);
    assert.deepEqual(
      children.find((c) => c.id === "appConfigMap")?.dependsOn,
      ["migrateJob"],
      "the other objects wait for the hook",
    );
    assert.ok(!warnings.some((w) => /hook\s+is not supported/.test(w)), warnings.join("\n"));
  });

  it("…a post-install one after them; one that renders no hook is an ordinary object; one that cannot render is left out, said with its expression", () => {
    assert.deepEqual(
      childrenOf(hookChart("hook: post-install\n")).children.find((c) => c.id === "migrateJob")?.dependsOn,
      ["appConfigMap"],
    );
    const plain = childrenOf(hookChart('hook: ""\n'));
    assert.equal(
      plain.children.find((c) => c.id === "appConfigMap")?.dependsOn,
      undefined,
      "nothing waits for it as for a pre-install hook",
    );
    assert.ok(
      plain.warnings.some((w) => w.includes("{{ $hookType }} renders no hook")),
      plain.warnings.join("\n"),
    );
    const files = new Map(hookChart("hook: pre-install\n"));
    files.set(
      "templates/migrate.yaml",
      enc.encode(
        '{{ required "hook is required" .Values.nothing }}\nkind: Job\nmetadata:\n  annotations:\n    "helm.sh/hook": {{ .Values.hook }}\n',
      ),
    );
    const broken = childrenOf(files);
    assert.ok(!broken.children.some((c) => c.id === "migrateJob"));
    assert.ok(
      broken.warnings.some((w) =>
        w.includes("hook annotation {{ .Values.hook }} is templated and the template does not render"),
      ),
      broken.warnings.join("\n"),
    );
  });
});
