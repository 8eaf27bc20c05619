/**
 * `kro import helm` against the real helm binary: each chart is rendered by `helm template` and by
 * kro-ts (the imported RGD and an instance whose spec is the value set), with several value sets,
 * and the objects must be equal apart from the differences docs/design/helm-import.md lists.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { ChartFiles, HelmImportOptions } from "../../src/helm/index.js";
import { helm } from "../support/helm.js";
import { chartFiles, helmObjects, kroObjects } from "../support/helm-import.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURES = path.join(ROOT, "test/fixtures/helm");

async function assertSameObjects(
  chart: string,
  files: ChartFiles,
  values: object,
  extraHelmArgs: readonly string[] = [],
  importOptions: HelmImportOptions = {},
): Promise<void> {
  const theirs = await helmObjects(chart, values, extraHelmArgs);
  const ours = kroObjects(files, values, importOptions);
  assert.deepEqual(
    ours.errors,
    [],
    `kro-ts rendered ${path.basename(chart)} with ${JSON.stringify(values)} without errors`,
  );
  assert.deepEqual(
    [...ours.objects.keys()].sort(),
    [...theirs.keys()].sort(),
    `same objects for ${JSON.stringify(values)}`,
  );
  for (const [key, object] of theirs)
    assert.deepEqual(ours.objects.get(key), object, `${key} with ${JSON.stringify(values)}`);
}

describe("kro import helm renders what helm template renders", () => {
  let scratch: string;
  before(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), "kro-helm-import-"));
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("the chart helm create generates, with four value sets", async () => {
    await helm(["create", path.join(scratch, "web")]);
    const chart = path.join(scratch, "web");
    const files = await chartFiles(chart);
    const sets = [
      {},
      {
        replicaCount: 3,
        service: { port: 8080, type: "NodePort" },
        podAnnotations: { "a.example/x": "1" },
        podLabels: { tier: "web" },
      },
      {
        autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 5, targetMemoryUtilizationPercentage: 70 },
        ingress: {
          enabled: true,
          className: "nginx",
          hosts: [{ host: "a.example", paths: [{ path: "/", pathType: "Prefix" }] }],
          tls: [{ secretName: "t", hosts: ["a.example"] }],
        },
      },
      {
        serviceAccount: { create: false },
        fullnameOverride: "custom",
        image: { tag: "1.27" },
        resources: { limits: { cpu: "100m" } },
        nodeSelector: { disk: "ssd" },
        tolerations: [{ key: "k", operator: "Exists" }],
      },
      // null deletes a default (Helm's coalescing): the port and the probe's defaults are gone.
      { service: { port: null }, livenessProbe: null },
      // ... also inside a map the chart prints whole with toYaml (the RGD carries the chart's
      // defaults, the spec is coalesced over them); a null Helm has no default for stays null.
      {
        livenessProbe: { httpGet: { path: null } },
        readinessProbe: { httpGet: { port: null, path: "/ready" } },
        podAnnotations: { "a.example/x": null },
      },
    ];
    for (const values of sets) await assertSameObjects(chart, files, values);
  });

  it("the project's own charts/kro-ts (values.schema.json, helpers, RBAC, optional ServiceMonitor)", async () => {
    const chart = path.join(ROOT, "charts/kro-ts");
    const files = await chartFiles(chart);
    const sets = [
      {},
      {
        replicaCount: 1,
        leaderElection: { enabled: false },
        metrics: { service: { enabled: false } },
        rbac: { mode: "unrestricted" },
        extraArgs: ["--workers=2"],
      },
      {
        metrics: { serviceMonitor: { enabled: true, labels: { release: "prom" } } },
        podAnnotations: { a: "b" },
        allowCRDDeletion: true,
        image: { tag: "v9" },
      },
      // The documented way to drop the chart's default resources.
      { resources: null },
    ];
    for (const values of sets) await assertSameObjects(chart, files, values);
  });

  it("helpers, tpl, .Files, range over lists and maps, with, several documents per template, empty renders, hooks", async () => {
    const chart = path.join(FIXTURES, "features");
    const files = await chartFiles(chart);
    const sets = [
      {},
      {
        worker: { enabled: true, replicas: 4 },
        extraConfigs: [
          { name: "a", value: "1" },
          { name: "b", value: "2" },
        ],
        podAnnotations: { x: "y" },
        env: { Z: "last", A: "first" },
      },
      {
        migrations: { enabled: false },
        ports: [{ name: "only", port: 81 }],
        greeting: "{{ .Chart.Name }}!",
        big: 12,
        ratio: 2,
      },
    ];
    for (const values of sets) await assertSameObjects(chart, files, values);
  });

  it("subcharts: values scoped per subchart, global from the parent, alias, condition and tags", async () => {
    const chart = path.join(FIXTURES, "umbrella");
    const files = await chartFiles(chart);
    const sets = [
      {},
      { child: { enabled: false } },
      { global: { region: "ap-south-1" }, second: { size: "xl" }, child: { color: "green" } },
      { tags: { backend: false } },
    ];
    for (const values of sets) await assertSameObjects(chart, files, values);
  });

  it("Bitnami-style capabilities helpers: kinds whose apiVersion is an include, off by default, turned on by values", async () => {
    const chart = path.join(FIXTURES, "capabilities");
    const files = await chartFiles(chart);
    const on = {
      pdb: { create: true },
      autoscaling: { enabled: true },
      metrics: { serviceMonitor: { enabled: true } },
    };
    const sets = [
      {},
      on,
      // The helpers' own override of .Capabilities.KubeVersion: older versions of the same groups.
      { ...on, kubeVersion: "1.20.0" },
    ];
    for (const values of sets) await assertSameObjects(chart, files, values);
    // The ServiceMonitor renders where the cluster serves monitoring.coreos.com/v1, as --api-versions says.
    const monitoring = ["monitoring.coreos.com/v1"];
    for (const values of sets)
      await assertSameObjects(chart, files, values, ["--api-versions", monitoring.join(",")], {
        apiVersions: monitoring,
      });
    // And --kube-version answers .Capabilities.KubeVersion for both.
    await assertSameObjects(chart, files, on, ["--kube-version", "v1.22.0"], { kubeVersion: "v1.22.0" });
  });
});
