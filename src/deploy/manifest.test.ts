import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { GRAPH_REVISION, RGD, graphRevisionCustomResourceDefinition, rgdCustomResourceDefinition } from "../api/index.js";
import { REPO_ROOT, loadChart } from "./chart-files.js";
import { expectedDeployFiles, staleDeployFiles } from "./generate.js";
import { CHART_CRD_PATH, CHART_DIR, CHART_GRAPH_REVISION_CRD_PATH, MANIFEST_PATH, controllerManifest, sortForInstall } from "./manifest.js";

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };

async function committedManifest(): Promise<Obj[]> {
  const text = await readFile(path.join(REPO_ROOT, MANIFEST_PATH), "utf8");
  return parseAllDocuments(text).map((d) => d.toJS() as Obj | null).filter((o) => o !== null);
}

function find(objects: readonly Obj[], kind: string, name: string): Obj {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(found, `${kind}/${name} in the manifest`);
  return found;
}

/** Reads a nested field with a readable failure instead of a TypeError. */
function at(value: unknown, ...keys: (string | number)[]): unknown {
  let current = value;
  for (const key of keys) {
    assert.ok(typeof current === "object" && current !== null, `${keys.join(".")}: ${String(key)} of a non-object`);
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

describe("generated deploy files", () => {
  it("are up to date (run `npm run generate:deploy` after changing charts/kro-ts or the RGD CRD)", async () => {
    assert.deepEqual(await staleDeployFiles(), []);
  });

  it("notice a stale manifest or chart CRD", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "kro-deploy-"));
    try {
      await cp(path.join(REPO_ROOT, CHART_DIR), path.join(root, CHART_DIR), { recursive: true });
      await cp(path.join(REPO_ROOT, "deploy"), path.join(root, "deploy"), { recursive: true });
      assert.deepEqual(await staleDeployFiles(root), []);
      const values = path.join(root, CHART_DIR, "values.yaml");
      await writeFile(values, (await readFile(values, "utf8")).replace("replicaCount: 2", "replicaCount: 3"));
      assert.deepEqual(await staleDeployFiles(root), [MANIFEST_PATH]);
      await writeFile(path.join(root, CHART_CRD_PATH), "# edited by hand\n");
      assert.deepEqual(await staleDeployFiles(root), [CHART_CRD_PATH, MANIFEST_PATH]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("put the CRDs from src/api into the chart and the manifest, unchanged", async () => {
    const files = await expectedDeployFiles();
    for (const [file, name, expected] of [
      [CHART_CRD_PATH, RGD.crdName, rgdCustomResourceDefinition()],
      [CHART_GRAPH_REVISION_CRD_PATH, GRAPH_REVISION.crdName, graphRevisionCustomResourceDefinition()],
    ] as const) {
      const crdFile = files.get(file);
      assert.ok(crdFile !== undefined, file);
      const [crd] = parseAllDocuments(crdFile).map((d) => d.toJS() as unknown);
      assert.deepEqual(crd, expected);
      assert.deepEqual(find(await committedManifest(), "CustomResourceDefinition", name), expected);
    }
  });
});

describe("deploy/kro-controller.yaml", () => {
  it("holds the namespace, CRD, ServiceAccount, RBAC, Deployment, metrics and webhook Services in install order", async () => {
    const objects = await committedManifest();
    assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.name}`), [
      "Namespace/kro-system",
      `CustomResourceDefinition/${GRAPH_REVISION.crdName}`,
      `CustomResourceDefinition/${RGD.crdName}`,
      "ServiceAccount/kro-ts",
      "ClusterRole/kro-ts",
      "ClusterRole/kro-ts:base",
      "ClusterRoleBinding/kro-ts",
      "Role/kro-ts:leader-election",
      "Role/kro-ts:secrets",
      "RoleBinding/kro-ts:leader-election",
      "RoleBinding/kro-ts:secrets",
      "Service/kro-ts-metrics",
      "Service/kro-ts-webhook",
      "Deployment/kro-ts",
    ]);
    for (const o of objects.filter((x) => !["Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"].includes(x.kind))) {
      assert.equal(o.metadata.namespace, "kro-system", `${o.kind} is in kro-system`);
    }
    // Not Helm-managed: no helm.sh/chart or managed-by: Helm labels that would confuse `helm upgrade`.
    for (const o of objects) assert.ok(!JSON.stringify(o.metadata.labels ?? {}).includes("Helm"), `${o.kind} has no Helm labels`);
  });

  it("runs two hardened replicas with leader election, probes and resource limits", async () => {
    const deployment = find(await committedManifest(), "Deployment", "kro-ts");
    assert.equal(at(deployment, "spec", "replicas"), 2);
    const pod = at(deployment, "spec", "template", "spec");
    assert.equal(at(pod, "serviceAccountName"), "kro-ts");
    assert.deepEqual(at(pod, "securityContext"), { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: "RuntimeDefault" } });
    const container = at(pod, "containers", 0);
    assert.equal(at(container, "image"), "kro-ts:0.1.0");
    assert.deepEqual(at(container, "args"), [
      "--metrics-bind-address=:8078",
      "--health-probe-bind-address=:8079",
      "--leader-elect",
      "--leader-election-namespace=kro-system",
      "--shards=16",
      "--workers=4",
      "--evaluation-crash-limit=3",
      "--client-qps=100",
      "--client-burst=150",
      "--log-level=info",
      "--log-format=json",
      "--author-check=Enforced",
      "--conversion-webhook-bind-address=0.0.0.0:9443",
      "--conversion-webhook-service=kro-system/kro-ts-webhook:443",
      "--conversion-webhook-secret=kro-system/kro-ts-webhook-cert",
    ]);
    assert.deepEqual(at(container, "env"), [{ name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }]);
    assert.deepEqual(at(container, "livenessProbe", "httpGet"), { path: "/healthz", port: "health" });
    assert.deepEqual(at(container, "readinessProbe", "httpGet"), { path: "/readyz", port: "health" });
    assert.deepEqual(at(container, "ports"), [
      { name: "http-metrics", containerPort: 8078, protocol: "TCP" },
      { name: "health", containerPort: 8079, protocol: "TCP" },
      { name: "webhook", containerPort: 9443, protocol: "TCP" },
    ]);
    assert.deepEqual(at(container, "resources"), { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "1", memory: "512Mi" } });
    assert.deepEqual(at(container, "securityContext"), {
      allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, privileged: false,
      capabilities: { drop: ["ALL"] }, seccompProfile: { type: "RuntimeDefault" },
    });
    assert.deepEqual(at(container, "volumeMounts"), [{ name: "tmp", mountPath: "/tmp" }]);
  });

  it("grants least privilege: RGDs, GraphRevisions, CRDs (no delete), events, the instance-author policies, and leases in kro-system only; the rest by aggregation", async () => {
    const objects = await committedManifest();
    const aggregated = find(objects, "ClusterRole", "kro-ts");
    assert.deepEqual(at(aggregated, "aggregationRule"), { clusterRoleSelectors: [{ matchLabels: { "rbac.kro.run/aggregate-to-controller": "true" } }] });
    assert.equal(at(aggregated, "rules"), undefined, "kube-controller-manager owns the aggregated rules");
    const base = find(objects, "ClusterRole", "kro-ts:base");
    assert.equal(base.metadata.labels?.["rbac.kro.run/aggregate-to-controller"], "true");
    const rules = at(base, "rules") as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    const grants = rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((res) => `${g}/${res}: ${r.verbs.join(",")}`)));
    assert.deepEqual(grants, [
      "kro.run/resourcegraphdefinitions: get,list,watch,update,patch",
      "kro.run/resourcegraphdefinitions/status: get,update,patch",
      "kro.run/resourcegraphdefinitions/finalizers: update",
      "internal.kro.run/graphrevisions: get,list,create,update,delete",
      "internal.kro.run/graphrevisions/status: update",
      "apiextensions.k8s.io/customresourcedefinitions: get,list,watch,create,update,patch",
      "/events: create,patch",
      "events.k8s.io/events: create,patch",
      "admissionregistration.k8s.io/validatingadmissionpolicies: get,list,watch,create,update,patch,delete",
      "admissionregistration.k8s.io/validatingadmissionpolicybindings: get,list,watch,create,update,patch,delete",
      "admissionregistration.k8s.io/mutatingwebhookconfigurations: get,list,watch,create,update,patch,delete",
      "authentication.k8s.io/selfsubjectreviews: create",
      "authorization.k8s.io/subjectaccessreviews: create",
    ]);
    const lease = find(objects, "Role", "kro-ts:leader-election");
    assert.equal(lease.metadata.namespace, "kro-system");
    assert.deepEqual(at(lease, "rules"), [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "list", "watch", "create", "update", "patch"] }]);
    const binding = find(objects, "ClusterRoleBinding", "kro-ts");
    assert.deepEqual(at(binding, "subjects"), [{ kind: "ServiceAccount", name: "kro-ts", namespace: "kro-system" }]);
    assert.deepEqual(at(binding, "roleRef"), { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "kro-ts" });
  });

  it("is the chart rendered with its defaults: a changed value changes the manifest", async () => {
    const chart = await loadChart(path.join(REPO_ROOT, CHART_DIR));
    const edited = { ...chart, valuesYaml: chart.valuesYaml.replace("workers: 4", "workers: 9") };
    assert.match(controllerManifest(edited), /- --workers=9\n/);
    assert.match(controllerManifest(chart), /- --workers=4\n/);
  });
});

describe("sortForInstall", () => {
  it("orders by Helm's install order, unknown kinds last, then by namespace and name", () => {
    const o = (kind: string, name: string, namespace?: string) => ({ kind, metadata: namespace === undefined ? { name } : { name, namespace } });
    const sorted = sortForInstall([o("Deployment", "b", "x"), o("Widget", "w"), o("Deployment", "a", "x"), o("ServiceAccount", "s", "x"), o("ClusterRole", "c"), o("Namespace", "n")]);
    assert.deepEqual(sorted.map((x) => `${x.kind}/${x.metadata.name}`), ["Namespace/n", "ServiceAccount/s", "ClusterRole/c", "Deployment/a", "Deployment/b", "Widget/w"]);
  });
});
