// Helm's lookup and .Capabilities on a cluster (helm-cluster.ts): Helm's answers over the
// ObservedLookup port, the tenant rules (declared kinds, the instance's namespace, opt-ins), the
// recorded scopes, and re-rendering when an answer changes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRgd, type CompiledGraph } from "../../graph/index.js";
import { evaluateInstance } from "../evaluate.js";
import { createMemoryLookup } from "../memory-lookup.js";
import type { HelmClusterOptions, HelmLookupAccess, KubeJson } from "../types.js";

const PASSWORD = [
  '{{- $old := lookup "v1" "Secret" .Release.Namespace (printf "%s-pw" .Release.Name) }}',
  "apiVersion: v1",
  "kind: Secret",
  "metadata:",
  "  name: {{ .Release.Name }}-pw",
  "data:",
  '  password: {{ if $old }}{{ index $old.data "password" }}{{ else }}{{ "generated" | b64enc }}{{ end }}',
].join("\n");

const PROBE = [
  "apiVersion: v1",
  "kind: ConfigMap",
  "metadata:",
  "  name: {{ .Release.Name }}-probe",
  "data:",
  '  all: {{ (lookup "v1" "ConfigMap" .Values.ns "").items | default list | len | quote }}',
  '  node: {{ if .Values.node }}{{ (lookup "v1" "Node" "" .Values.node).metadata.name | quote }}{{ else }}none{{ end }}',
  '  dyn: {{ if .Values.kind }}{{ (lookup "v1" .Values.kind .Release.Namespace "x").kind | quote }}{{ else }}""{{ end }}',
  '  tpl: {{ tpl (.Values.tpl | default "") . | quote }}',
  '  caps: {{ .Capabilities.KubeVersion.Version }}-{{ .Capabilities.APIVersions.Has "example.com/v1" }}',
  '  noNs: {{ len (lookup "v1" "Secret" "" "x") | quote }}',
].join("\n");

function graphOf(templates: Record<string, string>, children: Record<string, unknown>[]): CompiledGraph {
  const result = compileRgd({
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "g" },
    spec: {
      resourceKind: { group: "t.example.com", version: "v1", kind: "LApp" },
      helm: {
        templates,
        charts: [{ templatePrefix: "c/", valuesPath: [], metadata: { name: "c", version: "1.0.0" }, files: {} }],
      },
      childResources: children,
    },
  });
  assert.ok(result.graph, JSON.stringify(result.issues));
  return result.graph;
}

const passwordGraph = () =>
  graphOf({ "c/templates/pw.yaml": PASSWORD }, [
    { id: "pw", apiVersion: "v1", kind: "Secret", manifests: "c/templates/pw.yaml" },
  ]);
const probeGraph = () =>
  graphOf({ "c/templates/probe.yaml": PROBE }, [
    { id: "probe", apiVersion: "v1", kind: "ConfigMap", manifests: "c/templates/probe.yaml" },
  ]);
const instance = (spec: Record<string, unknown> = {}): KubeJson => ({
  apiVersion: "t.example.com/v1",
  kind: "LApp",
  metadata: { name: "rel", namespace: "home", uid: "u1" },
  spec,
});
const SCOPES: Record<string, boolean> = { "v1/Secret": true, "v1/ConfigMap": true, "v1/Node": false };
const access = (over: Partial<HelmLookupAccess> = {}): HelmLookupAccess => ({
  namespaced: (a, k) => SCOPES[`${a}/${k}`],
  allowCrossNamespace: false,
  allowClusterScoped: false,
  ...over,
});
const cluster = (
  over: Partial<HelmLookupAccess> = {},
  capabilities = { kubeVersion: "v1.34.2", apiVersions: ["v1", "example.com/v1"] },
): HelmClusterOptions => ({ capabilities, lookups: access(over) });
const secret = (namespace: string, name: string, password: string, rv = "1"): KubeJson => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: rv },
  data: { password },
});
const cm = (namespace: string, name: string): KubeJson => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, uid: `uid-${name}`, resourceVersion: "1" },
});
const node = (name: string): KubeJson => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name, uid: `uid-${name}`, resourceVersion: "1" },
});
const data = (objects: readonly KubeJson[], name: string) =>
  objects.find((o) => (o.metadata as { name: string }).name === name)?.data as Record<string, string> | undefined;

describe("Helm lookup on a cluster", () => {
  it("keeps an existing Secret's password, generates one when absent, and records the scope read", () => {
    const graph = passwordGraph();
    const absent = evaluateInstance(graph, instance(), createMemoryLookup(), { helm: cluster() });
    assert.equal(absent.error, undefined);
    assert.equal(data(absent.apply, "rel-pw")?.password, Buffer.from("generated").toString("base64"));
    assert.deepEqual(absent.externals, [
      { nodeId: "pw", request: { apiVersion: "v1", kind: "Secret", name: "rel-pw", namespace: "home" } },
    ]);
    const present = evaluateInstance(graph, instance(), createMemoryLookup([secret("home", "rel-pw", "a2VwdA==")]), {
      helm: cluster(),
    });
    assert.equal(data(present.apply, "rel-pw")?.password, "a2VwdA==");
  });

  it("lookupFrom answers lookups instead of the pass's own view (the migration plan: live objects, simulated children)", () => {
    const view = createMemoryLookup([secret("home", "rel-pw", "c2ltdWxhdGVk")]);
    const live = createMemoryLookup([secret("home", "rel-pw", "bGl2ZQ==")]);
    const evaluation = evaluateInstance(passwordGraph(), instance(), view, {
      helm: { ...cluster(), lookupFrom: live },
    });
    assert.equal(data(evaluation.apply, "rel-pw")?.password, "bGl2ZQ==");
    assert.equal(evaluation.externals.length, 1, "the scope is still recorded");
  });

  it("offline (no cluster options) every lookup is {} and nothing is recorded, as helm template", () => {
    const evaluation = evaluateInstance(
      passwordGraph(),
      instance(),
      createMemoryLookup([secret("home", "rel-pw", "a2VwdA==")]),
    );
    assert.equal(data(evaluation.apply, "rel-pw")?.password, Buffer.from("generated").toString("base64"));
    assert.deepEqual(evaluation.externals, []);
  });

  it("renders again when an answer changes, with the same instance object (the controller's two passes)", () => {
    const graph = passwordGraph();
    const object = instance();
    const lookup = createMemoryLookup();
    const options = { helm: cluster() };
    assert.equal(
      data(evaluateInstance(graph, object, lookup, options).apply, "rel-pw")?.password,
      Buffer.from("generated").toString("base64"),
    );
    lookup.put(secret("home", "rel-pw", "Zmlyc3Q="));
    assert.equal(data(evaluateInstance(graph, object, lookup, options).apply, "rel-pw")?.password, "Zmlyc3Q=");
    lookup.put(secret("home", "rel-pw", "c2Vjb25k", "2"));
    const third = evaluateInstance(graph, object, lookup, options);
    assert.equal(data(third.apply, "rel-pw")?.password, "c2Vjb25k");
    // A reused render still reports its scopes, or the controller would stop watching them.
    assert.equal(evaluateInstance(graph, object, lookup, options).externals.length, 1);
  });

  it("lists (name \"\") in the instance's namespace, sorted; a namespaced get without a namespace is {} (Helm's 404); capabilities come from the cluster", () => {
    const lookup = createMemoryLookup([cm("home", "b"), cm("home", "a"), cm("other", "c")]);
    const evaluation = evaluateInstance(probeGraph(), instance({ ns: "home" }), lookup, { helm: cluster() });
    assert.equal(evaluation.error, undefined);
    const probe = data(evaluation.apply, "rel-probe");
    assert.ok(probe);
    assert.equal(probe.all, "2");
    assert.equal(probe.noNs, "0");
    assert.equal(probe.caps, "v1.34.2-true");
    assert.ok(
      evaluation.externals.some(
        (e) =>
          e.nodeId === "probe" &&
          JSON.stringify(e.request) ===
            JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", matchLabels: {}, namespace: "home" }),
      ),
    );
    // Offline capabilities are spec.helm's.
    const offline = data(evaluateInstance(probeGraph(), instance({ ns: "home" }), lookup).apply, "rel-probe");
    assert.equal(offline?.caps, "v1.33.0-false");
  });

  const refusals: [string, Record<string, unknown>, RegExp][] = [
    [
      "another namespace",
      { ns: "other" },
      /c\/templates\/probe\.yaml:6.*lookup "v1" "ConfigMap" "other" "" refused: .*outside the instance's namespace "home".*kro\.run\/allow-cross-namespace/,
    ],
    ["all namespaces", { ns: "" }, /lookup "v1" "ConfigMap" "" "" refused: it reads ConfigMap in all namespaces/],
    [
      "a cluster-scoped kind",
      { ns: "home", node: "n1" },
      /c\/templates\/probe\.yaml:7.*lookup "v1" "Node" "" "n1" refused: Node is cluster-scoped .*kro\.run\/allow-cluster-scoped/,
    ],
    [
      "an undeclared kind (from values)",
      { ns: "home", kind: "ServiceAccount" },
      /probe\.yaml:8.*lookup "v1" "ServiceAccount" "home" "x" refused: no template of the chart declares a lookup of ServiceAccount/,
    ],
    [
      "a lookup smuggled in through tpl",
      { ns: "home", tpl: '{{ (lookup "v1" "Pod" "home" "p").kind }}' },
      /lookup "v1" "Pod" "home" "p" refused: no template of the chart declares/,
    ],
  ];
  for (const [what, spec, message] of refusals) {
    it(`refuses ${what}: the render fails naming template and line, nothing is applied`, () => {
      const evaluation = evaluateInstance(
        probeGraph(),
        instance(spec),
        createMemoryLookup([node("n1"), cm("other", "c")]),
        { helm: cluster() },
      );
      assert.match(evaluation.error ?? "", message);
      assert.deepEqual(evaluation.apply, []);
    });
  }

  it("the RGD's opt-ins open other namespaces and cluster-scoped kinds", () => {
    const lookup = createMemoryLookup([node("n1"), cm("other", "c"), cm("home", "a")]);
    const evaluation = evaluateInstance(probeGraph(), instance({ ns: "", node: "n1" }), lookup, {
      helm: cluster({ allowCrossNamespace: true, allowClusterScoped: true }),
    });
    assert.equal(evaluation.error, undefined);
    assert.equal(data(evaluation.apply, "rel-probe")?.all, "2");
    assert.equal(data(evaluation.apply, "rel-probe")?.node, "n1");
  });

  it("a kind the server does not serve fails like Helm's lookup", () => {
    const evaluation = evaluateInstance(probeGraph(), instance({ ns: "home" }), createMemoryLookup(), {
      helm: { lookups: access({ namespaced: () => undefined }) },
    });
    assert.match(
      evaluation.error ?? "",
      /probe\.yaml:6.*unable to get apiresource from unstructured: ConfigMap \(v1\) is not served/,
    );
  });

  it("bounds the distinct lookups of one render (each is a watch): values cannot open thousands", () => {
    const many =
      '{{- range .Values.names }}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: copy-{{ . }}\ndata: {{ (lookup "v1" "Secret" $.Release.Namespace .).data | default dict | toJson }}\n{{- end }}';
    const graph = graphOf({ "c/templates/many.yaml": many }, [
      { id: "many", apiVersion: "v1", kind: "Secret", manifests: "c/templates/many.yaml" },
    ]);
    const names = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
    const within = evaluateInstance(graph, instance({ names: names(64) }), createMemoryLookup(), { helm: cluster() });
    assert.equal(within.error, undefined);
    assert.equal(within.externals.length, 64);
    const beyond = evaluateInstance(graph, instance({ names: names(65) }), createMemoryLookup(), { helm: cluster() });
    assert.match(beyond.error ?? "", /many\.yaml:7.*too many lookups: one render may read at most 64/);
    assert.deepEqual(beyond.apply, []);
  });
});
