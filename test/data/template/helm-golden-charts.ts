/**
 * Helm golden cases from whole charts: the chart `helm create` generates
 * (test/data/template/charts/helm-create, Helm 3.18.6) and this project's own charts/kro-ts,
 * each with several value sets.
 * Values are values.yaml deep-merged with the case's overrides, given to both engines as is.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { DEFAULT_API_VERSIONS, type HelmCase } from "./helm-golden-support.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

function filesUnder(dir: string, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = `${prefix}${e.name}`;
    if (e.isDirectory()) Object.assign(out, filesUnder(path.join(dir, e.name), `${rel}/`));
    else out[rel] = readFileSync(path.join(dir, e.name), "utf8");
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isRecord(v) && isRecord(out[k]) ? merge(out[k], v) : v;
  return out;
}

function chartCases(dir: string, valueSets: readonly Record<string, unknown>[], kubeVersions: readonly string[] = ["v1.30.2"]): HelmCase[] {
  const abs = path.join(root, dir);
  const meta = parse(readFileSync(path.join(abs, "Chart.yaml"), "utf8")) as Record<string, string>;
  const values = parse(readFileSync(path.join(abs, "values.yaml"), "utf8")) as Record<string, unknown>;
  const templates = filesUnder(path.join(abs, "templates"), "templates/");
  return kubeVersions.flatMap((kubeVersion) => valueSets.map((over) => ({
    name: meta.name ?? "chart", version: meta.version ?? "0.1.0", appVersion: meta.appVersion ?? "1.16.0",
    templates, values: merge(values, over), kubeVersion, apiVersions: DEFAULT_API_VERSIONS,
  })));
}

export const chartGoldenCases: readonly HelmCase[] = [
  ...chartCases("test/data/template/charts/helm-create", [
    {},
    { ingress: { enabled: true, className: "nginx", annotations: { "cert-manager.io/cluster-issuer": "x" }, hosts: [{ host: "a.example.com", paths: [{ path: "/", pathType: "Prefix" }] }], tls: [{ secretName: "t", hosts: ["a.example.com"] }] } },
    { autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70, targetMemoryUtilizationPercentage: 60 }, serviceAccount: { create: false, name: "" } },
    { fullnameOverride: "custom", podAnnotations: { a: "1" }, podLabels: { tier: "web" }, resources: { limits: { cpu: "100m" } }, nodeSelector: { disk: "ssd" }, tolerations: [{ key: "k", operator: "Exists" }], volumes: [{ name: "v", emptyDir: {} }], volumeMounts: [{ name: "v", mountPath: "/v" }] },
    { nameOverride: "a-name-that-is-far-too-long-for-kubernetes-resource-names-really-long", image: { tag: "2.0" }, service: { type: "NodePort", port: 8080 } },
  ], ["v1.30.2", "v1.18.0"]),
  ...chartCases("charts/kro-ts", [
    {},
    { replicaCount: 1, leaderElection: { enabled: false }, log: { level: "debug" }, resources: {} },
    { metrics: { serviceMonitor: { enabled: true, labels: { release: "prom" } } }, rbac: { mode: "unrestricted" }, extraArgs: ["--x=1"], podAnnotations: { a: "b" } },
    { ui: { enabled: true, tls: { secretName: "kro-ui-cert" } } },
  ]),
];
