import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT, loadChart } from "./chart-files.js";
import { coalesceValues as mergeValues } from "../helm/index.js";
import { ChartRenderError, renderChart, type ChartSource, type RenderChartOptions } from "./helm-render.js";
import { CHART_DIR } from "./manifest.js";

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };

const release: RenderChartOptions = { releaseName: "kro-ts", namespace: "kro-system", service: "Helm" };
const chart = await loadChart(path.join(REPO_ROOT, CHART_DIR));
const render = (values: Record<string, unknown> = {}, options: Partial<RenderChartOptions> = {}) =>
  renderChart(chart, { ...release, ...options, values }).objects as Obj[];
const names = (objects: readonly Obj[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();

function find(objects: readonly Obj[], kind: string, name?: string): Obj {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  assert.ok(found, `${kind}/${name ?? "*"} rendered`);
  return found;
}

function container(objects: readonly Obj[]): { args: string[]; image: string; resources: unknown } {
  const deployment = find(objects, "Deployment") as { spec?: { template?: { spec?: { containers?: unknown[] } } } };
  const [first] = deployment.spec?.template?.spec?.containers ?? [];
  assert.ok(first !== undefined);
  return first as { args: string[]; image: string; resources: unknown };
}

function renderError(values: Record<string, unknown>): ChartRenderError {
  try {
    render(values);
  } catch (e) {
    assert.ok(e instanceof ChartRenderError, String(e));
    return e;
  }
  assert.fail("expected the render to fail");
}

describe("renderChart on charts/kro-ts", () => {
  it("labels objects for Helm only when Helm renders", () => {
    const sa = find(render(), "ServiceAccount");
    assert.equal(sa.metadata.labels?.["app.kubernetes.io/managed-by"], "Helm");
    assert.equal(sa.metadata.labels["helm.sh/chart"], "kro-ts-0.1.0");
    const plain = find(render({}, { service: "kubectl" }), "ServiceAccount");
    assert.equal(plain.metadata.labels?.["helm.sh/chart"], undefined);
  });

  it("names objects after the release, as Helm's fullname convention does", () => {
    assert.deepEqual(names(render({}, { releaseName: "prod" })), [
      "ClusterRole/prod-kro-ts", "ClusterRole/prod-kro-ts:base", "ClusterRoleBinding/prod-kro-ts", "Deployment/prod-kro-ts",
      "Role/prod-kro-ts:leader-election", "Role/prod-kro-ts:secrets", "RoleBinding/prod-kro-ts:leader-election", "RoleBinding/prod-kro-ts:secrets",
      "Service/prod-kro-ts-metrics", "Service/prod-kro-ts-webhook", "ServiceAccount/prod-kro-ts",
    ]);
    assert.equal(find(render({ fullnameOverride: "orchestrator" }), "Deployment").metadata.name, "orchestrator");
    assert.equal(find(render({ serviceAccount: { name: "robot" } }), "ServiceAccount").metadata.name, "robot");
    // Sprig's trunc keeps names within 63 characters.
    assert.equal(find(render({ fullnameOverride: "x".repeat(80) }), "Deployment").metadata.name, "x".repeat(63));
  });

  it("passes image, replicas, resources, log level, workers and client limits to the Deployment", () => {
    const objects = render({
      image: { repository: "registry.example/kro-ts", tag: "1.2.3" }, replicaCount: 3, workers: 8,
      client: { qps: 50, burst: 75 }, log: { level: "debug", format: "text" },
      resources: { requests: { cpu: "250m" }, limits: null }, extraArgs: ["--graceful-shutdown-timeout=30s"], evaluationCrashLimit: 3,
    });
    assert.equal((find(objects, "Deployment").spec as { replicas: number }).replicas, 3);
    const c = container(objects);
    assert.equal(c.image, "registry.example/kro-ts:1.2.3");
    for (const flag of ["--evaluation-crash-limit=3", "--workers=8", "--client-qps=50", "--client-burst=75", "--log-level=debug", "--log-format=text", "--graceful-shutdown-timeout=30s"]) {
      assert.ok(c.args.includes(flag), `${flag} in ${c.args.join(" ")}`);
    }
    // null removes a default (Helm's coalescing): the limits are gone, the requests merged.
    assert.deepEqual(c.resources, { requests: { cpu: "250m", memory: "128Mi" } });
  });

  it("shares instances between replicas (--shards) only with more than one replica and leader election", () => {
    assert.ok(container(render({})).args.includes("--shards=16"));
    assert.ok(container(render({ replicaCount: 4, sharding: { shards: 64 } })).args.includes("--shards=64"));
    for (const values of [{ replicaCount: 1 }, { sharding: { shards: 0 } }, { replicaCount: 1, leaderElection: { enabled: false } }]) {
      assert.ok(!container(render(values)).args.some((a) => a.startsWith("--shards")), JSON.stringify(values));
    }
  });

  it("drops leader election's flag and Role for a single replica without it", () => {
    const objects = render({ replicaCount: 1, leaderElection: { enabled: false } });
    assert.ok(!container(objects).args.some((a) => a.startsWith("--leader-elect")));
    assert.ok(!objects.some((o) => (o.kind === "Role" || o.kind === "RoleBinding") && o.metadata.name.endsWith(":leader-election")));
    const elsewhere = render({ leaderElection: { namespace: "kro-leases" } });
    assert.equal(find(elsewhere, "Role", "kro-ts:leader-election").metadata.namespace, "kro-leases");
    assert.ok(container(elsewhere).args.includes("--leader-election-namespace=kro-leases"));
  });

  it("rbac.mode=unrestricted grants everything with one ClusterRole and no aggregation", () => {
    const objects = render({ rbac: { mode: "unrestricted" } });
    const roles = objects.filter((o) => o.kind === "ClusterRole");
    assert.equal(roles.length, 1);
    assert.deepEqual(find(objects, "ClusterRole").rules, [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }]);
    assert.equal(find(objects, "ClusterRole").aggregationRule, undefined);
  });

  it("allowCRDDeletion adds the flag and the delete verb on CRDs", () => {
    const objects = render({ allowCRDDeletion: true });
    assert.ok(container(objects).args.includes("--allow-crd-deletion"));
    const rules = find(objects, "ClusterRole", "kro-ts:base").rules as { resources: string[]; verbs: string[] }[];
    const crd = rules.find((r) => r.resources.includes("customresourcedefinitions"));
    assert.ok(crd?.verbs.includes("delete"));
  });

  it("renders the metrics Service and an optional ServiceMonitor", () => {
    assert.ok(!render().some((o) => o.kind === "ServiceMonitor"));
    const objects = render({ metrics: { serviceMonitor: { enabled: true, labels: { release: "prometheus" } } } });
    const monitor = find(objects, "ServiceMonitor");
    assert.equal(monitor.apiVersion, "monitoring.coreos.com/v1");
    assert.equal(monitor.metadata.labels?.release, "prometheus");
    assert.deepEqual((monitor.spec as { endpoints: unknown[] }).endpoints, [{ port: "http-metrics", path: "/metrics", interval: "30s", scrapeTimeout: "10s" }]);
    assert.deepEqual(render({ metrics: { service: { enabled: false } } }).filter((o) => o.kind === "Service").map((o) => o.metadata.name), ["kro-ts-webhook"]);
  });

  it("serves the conversion webhook on every replica behind a Service, with its certificate Secret shared", () => {
    const objects = render({ conversionWebhook: { port: 9000, service: { port: 8443 } } });
    const args = container(objects).args;
    for (const flag of ["--conversion-webhook-bind-address=0.0.0.0:9000", "--conversion-webhook-service=kro-system/kro-ts-webhook:8443", "--conversion-webhook-secret=kro-system/kro-ts-webhook-cert"]) {
      assert.ok(args.includes(flag), `${flag} in ${args.join(" ")}`);
    }
    const service = find(objects, "Service", "kro-ts-webhook");
    assert.deepEqual((service.spec as { ports: unknown[] }).ports, [{ name: "webhook", port: 8443, targetPort: "webhook", protocol: "TCP" }]);
    const deployment = find(objects, "Deployment") as unknown as { spec: { template: { spec: { containers: { ports: { name: string; containerPort: number }[] }[] } } } };
    assert.ok(deployment.spec.template.spec.containers[0]?.ports.some((p) => p.name === "webhook" && p.containerPort === 9000));
    const rules = find(objects, "Role", "kro-ts:secrets").rules as { resources: string[]; resourceNames?: string[]; verbs: string[] }[];
    assert.deepEqual(rules, [
      { apiGroups: [""], resources: ["secrets"], verbs: ["create"] },
      { apiGroups: [""], resources: ["secrets"], resourceNames: ["kro-ts-webhook-cert"], verbs: ["get", "update"] },
    ], "only the webhook's own Secret can be read");
  });

  it("authorCheck and clusters.enabled reach the controller's flags; clusters grant reading Secrets and ClusterProfiles in the release namespace only", () => {
    assert.ok(container(render()).args.includes("--author-check=Enforced"));
    assert.ok(container(render({ authorCheck: "Disabled" })).args.includes("--author-check=Disabled"));
    assert.ok(!container(render()).args.some((a) => a.startsWith("--cluster-namespace")));
    const objects = render({ clusters: { enabled: true } });
    assert.ok(container(objects).args.includes("--cluster-namespace=kro-system"));
    const role = find(objects, "Role", "kro-ts:secrets");
    assert.equal(role.metadata.namespace, "kro-system");
    assert.ok((role.rules as { resourceNames?: string[]; verbs: string[] }[]).some((r) => r.resourceNames === undefined && r.verbs.join() === "get,list,watch"));
    assert.ok((role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]).some((r) => r.apiGroups.join() === "multicluster.x-k8s.io" && r.resources.join() === "clusterprofiles" && r.verbs.join() === "get,list,watch"), "ClusterProfiles are read in the release namespace");
    assert.ok(!(find(render(), "Role", "kro-ts:secrets").rules as { apiGroups: string[] }[]).some((r) => r.apiGroups.includes("multicluster.x-k8s.io")), "not without clusters.enabled");
  });

  it("serves the web view only when ui.enabled, granting TokenReviews only then, with TLS from a Secret", () => {
    const off = render();
    assert.ok(!container(off).args.some((a) => a.startsWith("--ui-")), "off by default");
    assert.ok(!off.some((o) => o.metadata.name === "kro-ts-ui"));
    const tokenReviews = (objects: readonly Obj[]) => (find(objects, "ClusterRole", "kro-ts:base").rules as { resources: string[]; verbs: string[] }[]).filter((r) => r.resources.includes("tokenreviews"));
    assert.deepEqual(tokenReviews(off), [], "no TokenReviews while the view is off");
    const on = render({ ui: { enabled: true, port: 9090 } });
    assert.ok(container(on).args.includes("--ui-bind-address=:9090"));
    assert.ok(!container(on).args.some((a) => a.startsWith("--ui-tls")), "plain HTTP without a Secret");
    assert.deepEqual(tokenReviews(on), [{ apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"] }]);
    // Reads use the person's token: the view adds no SubjectAccessReviews (the controller's own, for verifying delegations, are there either way).
    const reviews = (objects: readonly Obj[]) => (find(objects, "ClusterRole", "kro-ts:base").rules as { resources: string[] }[]).filter((r) => r.resources.includes("subjectaccessreviews"));
    assert.deepEqual(reviews(on), reviews(off), "reads use the person's token: no SubjectAccessReviews added for the view");
    const service = find(on, "Service", "kro-ts-ui");
    assert.deepEqual((service.spec as { ports: unknown[] }).ports, [{ name: "ui", port: 8082, targetPort: "ui", protocol: "TCP" }]);
    const tls = render({ ui: { enabled: true, tls: { secretName: "kro-ui-cert" } } });
    assert.ok(container(tls).args.includes("--ui-tls-cert-file=/etc/kro-ui-tls/tls.crt"));
    assert.ok(container(tls).args.includes("--ui-tls-key-file=/etc/kro-ui-tls/tls.key"));
    const pod = (find(tls, "Deployment") as unknown as { spec: { template: { spec: { volumes: { name: string; secret?: { secretName: string } }[] } } } }).spec.template.spec;
    assert.deepEqual(pod.volumes.find((v) => v.name === "ui-tls")?.secret, { secretName: "kro-ui-cert" });
  });

  it("renders an optional PodMonitor on the pods' http-metrics port, without needing the Service", () => {
    assert.ok(!render().some((o) => o.kind === "PodMonitor"));
    const objects = render({ metrics: { service: { enabled: false }, podMonitor: { enabled: true, labels: { release: "prometheus" } } } });
    const monitor = find(objects, "PodMonitor");
    assert.equal(monitor.apiVersion, "monitoring.coreos.com/v1");
    assert.equal(monitor.metadata.labels?.release, "prometheus");
    const spec = monitor.spec as { selector: { matchLabels: Record<string, string> }; podMetricsEndpoints: unknown[] };
    assert.deepEqual(spec.podMetricsEndpoints, [{ port: "http-metrics", path: "/metrics", interval: "30s", scrapeTimeout: "10s" }]);
    const deployment = find(objects, "Deployment") as unknown as { spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: { ports: { name: string }[] }[] } } } };
    for (const [k, v] of Object.entries(spec.selector.matchLabels)) assert.equal(deployment.spec.template.metadata.labels[k], v, "the selector matches the controller's pods");
    assert.ok(deployment.spec.template.spec.containers[0]?.ports.some((p) => p.name === "http-metrics"));
    assert.match(renderError({ metrics: { podMonitor: { enabled: true }, serviceMonitor: { enabled: true } } }).reason, /^metrics\.podMonitor\.enabled: choose one of/);
  });

  it("refuses values that would install a broken controller, pointing at the check", () => {
    const mode = renderError({ rbac: { mode: "admin" } });
    assert.equal(mode.file, "templates/_helpers.tpl");
    assert.equal(mode.reason, 'rbac.mode: must be "aggregation" or "unrestricted", got "admin"');
    assert.match(mode.message, /^templates\/_helpers\.tpl:\d+:\d+: rbac\.mode: /);
    assert.match(renderError({ leaderElection: { enabled: false } }).reason, /^replicaCount: 2 replicas need leaderElection\.enabled=true/);
    assert.match(renderError({ log: { level: "trace" } }).reason, /^log\.level: must be one of debug, info, warn, error, got "trace"/);
    assert.match(renderError({ workers: 0 }).reason, /^workers: must be at least 1, got 0/);
    const monitor = renderError({ metrics: { service: { enabled: false }, serviceMonitor: { enabled: true } } });
    assert.equal(monitor.file, "templates/servicemonitor.yaml");
    assert.match(monitor.reason, /^metrics\.serviceMonitor\.enabled: needs metrics\.service\.enabled=true/);
  });
});

describe("renderChart on small charts", () => {
  const tiny = (templates: Record<string, string>, valuesYaml = ""): ChartSource => ({
    chartYaml: "apiVersion: v2\nname: tiny\nversion: 1.0.0\nappVersion: \"2\"\n",
    valuesYaml,
    templates: Object.entries(templates).map(([p, text]) => ({ path: p, text })),
    crds: [{ path: "crds/c.yaml", text: "---\n# only a comment\n---\napiVersion: v1\nkind: Thing\nmetadata: {name: c}\n" }],
  });
  const opts: RenderChartOptions = { releaseName: "r", namespace: "ns", service: "Helm" };

  it("shares partials, renders include with its argument, skips NOTES.txt and empty documents, keeps CRDs apart", () => {
    const out = renderChart(tiny({
      "templates/_h.tpl": '{{ define "n" }}{{ .Chart.Name }}-{{ .Release.Name }}{{ end }}{{ define "x" }}v={{ .v }}{{ end }}',
      "templates/a.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include "n" . }}\n  namespace: {{ .Release.Namespace }}\ndata:\n  x: {{ include "x" (dict "v" .Values.n) | quote }}\n  big: {{ .Values.big | quote }}\n  missing: "{{ .Values.nope }}"\n---\n',
      "templates/NOTES.txt": "{{ fail \"never rendered\" }}",
    }, "n: 3\nbig: 1000000\n"), opts);
    assert.deepEqual(out.objects, [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "tiny-r", namespace: "ns" }, data: { x: "v=3", big: "1e+06", missing: "" } }]);
    assert.deepEqual(out.crdObjects, [{ apiVersion: "v1", kind: "Thing", metadata: { name: "c" } }]);
    assert.deepEqual(out.files.map((f) => f.path), ["templates/a.yaml"]);
  });

  it("locates template syntax errors in the file that has them", () => {
    assert.throws(() => renderChart(tiny({ "templates/_h.tpl": "{{ define \"n\" }}x{{ end }}", "templates/b.yaml": "a: 1\nb: {{ end }}\nc: 3\n" }), opts), (e: unknown) => {
      assert.ok(e instanceof ChartRenderError);
      assert.equal(e.file, "templates/b.yaml");
      assert.equal(e.line, 2);
      return true;
    });
    assert.throws(() => renderChart(tiny({ "templates/_h.tpl": "ok\n{{ define \"n\" }}{{ .Values.x.y.z }}{{ end }}", "templates/b.yaml": "a: {{ include \"n\" . }}\n" }), opts), (e: unknown) => {
      assert.ok(e instanceof ChartRenderError);
      assert.equal(e.file, "templates/_h.tpl");
      assert.equal(e.line, 2);
      assert.match(e.reason, /nil pointer evaluating interface \{\}\.y/);
      return true;
    });
  });

  it("reports rendered output that is not YAML or not an object", () => {
    assert.throws(() => renderChart(tiny({ "templates/b.yaml": "a: [1\n" }), opts), /templates\/b\.yaml:1:1: rendered output is not valid YAML \(at its line 2, column \d+\)/);
    assert.throws(() => renderChart(tiny({ "templates/b.yaml": "- 1\n" }), opts), /templates\/b\.yaml:1:1: rendered document is not a Kubernetes object/);
    assert.throws(() => renderChart({ ...tiny({}), valuesYaml: "- 1\n" }, opts), /values\.yaml:1:1: must be a YAML mapping/);
  });
});

describe("mergeValues", () => {
  it("merges maps, replaces scalars and lists, and deletes keys set to null", () => {
    assert.deepEqual(
      mergeValues({ a: { b: 1, c: 2 }, l: [1, 2], s: "x", gone: { x: 1 } }, { a: { c: 3, d: 4 }, l: [3], s: { now: "map" }, gone: null }),
      { a: { b: 1, c: 3, d: 4 }, l: [3], s: { now: "map" } },
    );
  });
});
