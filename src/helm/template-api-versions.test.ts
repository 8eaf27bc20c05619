import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRgd } from "../graph/index.js";
import { renderInstance } from "../runtime/index.js";
import { importHelmChart } from "./import-chart.js";
import { isHelmImportError, type ChartFiles, type HelmImportOptions } from "./types.js";

const enc = new TextEncoder();
const chart = (files: Record<string, string>): ChartFiles =>
  new Map(Object.entries(files).map(([k, v]) => [k, enc.encode(v)]));

/** Bitnami's common chart in miniature: apiVersions from helpers that read .Capabilities (and a values override). */
const CAPABILITIES = [
  '{{- define "caps.kubeVersion" -}}{{- default .Capabilities.KubeVersion.Version .Values.kubeVersion -}}{{- end -}}',
  '{{- define "caps.policy.apiVersion" -}}',
  '{{- if semverCompare "<1.21-0" (include "caps.kubeVersion" .) -}}policy/v1beta1{{- else -}}policy/v1{{- end -}}',
  "{{- end -}}",
  '{{- define "caps.hpa.apiVersion" -}}',
  '{{- if semverCompare "<1.23-0" (include "caps.kubeVersion" .context) -}}autoscaling/v2beta2{{- else -}}autoscaling/v2{{- end -}}',
  "{{- end -}}",
  '{{- define "caps.monitoring.apiVersion" -}}',
  '{{- if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" -}}monitoring.coreos.com/v1{{- else -}}monitoring.coreos.com/v1alpha1{{- end -}}',
  "{{- end -}}",
].join("\n");

const guarded = (flag: string, apiVersion: string, kind: string) =>
  [
    `{{- if .Values.${flag} }}`,
    `apiVersion: ${apiVersion}`,
    `kind: ${kind}`,
    "metadata:",
    "  name: {{ .Release.Name }}",
    "spec: {}",
    "{{- end }}",
  ].join("\n");

const FILES = {
  "Chart.yaml": "apiVersion: v2\nname: caps\nversion: 0.1.0\n",
  "values.yaml": 'kubeVersion: ""\npdb: false\nhpa: false\nmonitor: false\n',
  "templates/_capabilities.tpl": CAPABILITIES,
  "templates/pdb.yaml": guarded("pdb", '{{ include "caps.policy.apiVersion" . }}', "PodDisruptionBudget"),
  "templates/hpa.yaml": guarded(
    "hpa",
    '{{ include "caps.hpa.apiVersion" (dict "context" $) }}',
    "HorizontalPodAutoscaler",
  ),
  "templates/monitor.yaml": guarded("monitor", '"{{ template "caps.monitoring.apiVersion" . }}"', "ServiceMonitor"),
};

function children(files: Record<string, string>, options: HelmImportOptions = {}) {
  const imported = importHelmChart(chart(files), { releaseName: "rel", namespace: "ns", ...options });
  const list = (imported.rgd.spec as { childResources: { id: string; apiVersion: string; kind: string }[] })
    .childResources;
  return { imported, byKind: Object.fromEntries(list.map((c) => [c.kind, c.apiVersion])) };
}

describe("a kind whose apiVersion is templated and that the chart's values do not render", () => {
  it("gets a child, its apiVersion rendered from the expression with the chart's capabilities", () => {
    assert.deepEqual(children(FILES).byKind, {
      PodDisruptionBudget: "policy/v1",
      HorizontalPodAutoscaler: "autoscaling/v2",
      ServiceMonitor: "monitoring.coreos.com/v1alpha1",
    });
    assert.deepEqual(
      children(FILES, { kubeVersion: "v1.20.0", apiVersions: ["monitoring.coreos.com/v1"] }).byKind,
      {
        PodDisruptionBudget: "policy/v1beta1",
        HorizontalPodAutoscaler: "autoscaling/v2beta2",
        ServiceMonitor: "monitoring.coreos.com/v1",
      },
      "--kube-version and --api-versions answer .Capabilities, as in helm template",
    );
  });

  it("so an instance that enables it renders its objects, at the apiVersion its own render gives", () => {
    const { imported } = children(FILES);
    const { graph, issues } = compileRgd(imported.rgd);
    assert.ok(graph, JSON.stringify(issues));
    const render = (spec: object) =>
      renderInstance(
        graph,
        { ...imported.instance, spec },
        {
          now: "2026-01-01T00:00:00Z",
          assumeReady: true,
        },
      );
    const on = render({ kubeVersion: "", pdb: true, hpa: true, monitor: true });
    assert.deepEqual(
      on.evaluation.nodes.flatMap((n) => (n.error === undefined ? [] : [n.error])),
      [],
    );
    assert.deepEqual(on.evaluation.apply.map((o) => `${String(o.apiVersion)} ${String(o.kind)}`).sort(), [
      "autoscaling/v2 HorizontalPodAutoscaler",
      "monitoring.coreos.com/v1alpha1 ServiceMonitor",
      "policy/v1 PodDisruptionBudget",
    ]);
    // An older Kubernetes named in the values: another version of the same group, which the child owns too.
    const older = render({ kubeVersion: "1.20.0", pdb: true, hpa: true, monitor: false });
    assert.deepEqual(older.evaluation.apply.map((o) => `${String(o.apiVersion)} ${String(o.kind)}`).sort(), [
      "autoscaling/v2beta2 HorizontalPodAutoscaler",
      "policy/v1beta1 PodDisruptionBudget",
    ]);
  });

  it("a subchart's expression renders with the subchart's values, also when the subchart is disabled", () => {
    const { byKind } = children({
      "Chart.yaml":
        "apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n  - name: sub\n    version: 0.1.0\n    condition: sub.enabled\n",
      "values.yaml": "sub:\n  enabled: false\n",
      "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
      "charts/sub/values.yaml": "on: false\nwidgetApi: widgets.example.com/v2\n",
      "charts/sub/templates/widget.yaml": guarded("on", "{{ .Values.widgetApi }}", "Widget"),
    });
    assert.deepEqual(byKind, { Widget: "widgets.example.com/v2" });
  });

  it("an apiVersion that renders none is an import error naming the template file and line", () => {
    const files = {
      ...FILES,
      "templates/widget.yaml": ["# a widget", guarded("widget", "{{ .Values.nowhere }}", "Widget")].join("\n"),
    };
    assert.throws(
      () => importHelmChart(chart(files), { releaseName: "rel" }),
      (error: unknown) =>
        isHelmImportError(error) &&
        error.file === "templates/widget.yaml" &&
        error.line === 3 &&
        /kind Widget/.test(error.message) &&
        /\{\{ \.Values\.nowhere \}\}/.test(error.message),
    );
    // A variable of the template's own is not in scope on its own: the same error, not a crash.
    const variable = {
      ...FILES,
      "templates/widget.yaml": [
        '{{- $api := "widgets.example.com/v1" }}',
        guarded("widget", "{{ $api }}", "Widget"),
      ].join("\n"),
    };
    assert.throws(
      () => importHelmChart(chart(variable), { releaseName: "rel" }),
      (error: unknown) => isHelmImportError(error) && error.line === 3 && /undefined variable/.test(error.message),
    );
  });

  it("a kind Kubernetes serves keeps its usual apiVersion when the expression renders none", () => {
    const files = {
      ...FILES,
      "templates/cron.yaml": ['{{- $api := "batch/v1" }}', guarded("cron", "{{ $api }}", "CronJob")].join("\n"),
    };
    assert.equal(children(files).byKind.CronJob, "batch/v1");
  });
});
