/**
 * A chart too large to store as text: a GitOps server's shape, whose CRDs ship as templates
 * (Argo CD's are 50–700 KB each, 1.8 MB together), gated by `crds.install`, beside a ConfigMap.
 * Shared by the unit test of the import's packing and the integration test on the cluster.
 */

/** A CRD template: a long OpenAPI schema with descriptions, as real CRDs have. */
export function crdTemplate(kind: string, properties: number): string {
  const lines = [
    "{{- if .Values.crds.install }}",
    "apiVersion: apiextensions.k8s.io/v1",
    "kind: CustomResourceDefinition",
    `metadata:\n  name: ${kind.toLowerCase()}s.example.io`,
    "spec:",
    "  group: example.io",
    `  names: {kind: ${kind}, plural: ${kind.toLowerCase()}s}`,
    "  scope: Namespaced",
    "  versions:",
    "    - name: v1alpha1",
    "      served: true",
    "      storage: true",
    "      schema:",
    "        openAPIV3Schema:",
    "          type: object",
    "          properties:",
  ];
  for (let i = 0; i < properties; i++) {
    lines.push(
      `            field${i}:`,
      "              type: object",
      `              description: Field${i} of ${kind} holds the settings of source number ${i}; when it is empty the controller applies the defaults documented in the user guide, section ${i % 17}.`,
      "              properties:",
      `                name: {type: string, description: "Name of item ${i}."}`,
      `                limit: {type: integer, format: int64, minimum: ${i % 9}}`,
    );
  }
  lines.push("{{- end }}");
  return `${lines.join("\n")}\n`;
}

export const LARGE_CHART_CRD_KINDS = [
  "Application",
  "ApplicationSet",
  "AppProject",
  "Rollout",
  "Experiment",
  "AnalysisRun",
  "AnalysisTemplate",
  "Workflow",
];

/** The chart's files (chart-relative path → text): ~2.9 MB of text, CRDs off by default. */
export function largeChartFiles(name = "gitops"): Record<string, string> {
  const files: Record<string, string> = {
    "Chart.yaml": `apiVersion: v2\nname: ${name}\nversion: 1.0.0\n`,
    "values.yaml": "crds:\n  install: false\nmessage: hello\n",
    "templates/cm.yaml":
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Release.Name }}}\ndata: {message: {{ .Values.message | quote }}}\n",
  };
  for (const kind of LARGE_CHART_CRD_KINDS)
    files[`templates/crds/${kind.toLowerCase()}.yaml`] = crdTemplate(kind, 1200);
  return files;
}
