// charts/kro-ts checked by a real helm (built from the helm.sh/helm/v3 Go module): it lints,
// `helm template` produces exactly the objects our helm-free renderer produces (which is what
// generates deploy/kro-controller.yaml), its value checks fire in helm too, and it installs on
// and uninstalls from the real control plane.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { CHART_DIR, REPO_ROOT, loadChart, renderChart, type ChartSource } from "../../src/deploy/index.js";
import { eventually } from "../support/eventually.js";
import { HelmError, helm, helmBinary } from "../support/helm.js";
import { KubectlError, kubectl, kubectlJson, testCluster, testNamespace } from "../support/test-cluster.js";

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };

const chartDir = path.join(REPO_ROOT, CHART_DIR);
const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
const sorted = (objects: readonly Obj[]) => [...objects].sort((a, b) => key(a).localeCompare(key(b)));

describe("charts/kro-ts with a real helm", () => {
  let chart: ChartSource;
  let scratch: string;
  const valuesFile = async (values: Record<string, unknown>): Promise<string> => {
    const file = path.join(scratch, `values-${randomBytes(4).toString("hex")}.json`);
    await writeFile(file, JSON.stringify(values));
    return file;
  };

  before(async () => {
    await helmBinary(); // the first run builds it (about a minute with a warm Go module cache)
    chart = await loadChart(chartDir);
    scratch = await mkdtemp(path.join(tmpdir(), "kro-helm-"));
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("passes helm lint --strict with the defaults and with the opt-ins", async () => {
    const variants = [
      {},
      { rbac: { mode: "unrestricted" } },
      { metrics: { serviceMonitor: { enabled: true } }, allowCRDDeletion: true },
      { metrics: { podMonitor: { enabled: true } } },
      { ui: { enabled: true, tls: { secretName: "kro-ui-cert" } } },
      { networkPolicy: { enabled: true, webhookFrom: [{ ipBlock: { cidr: "10.0.0.0/24" } }] } },
    ];
    for (const values of variants) {
      const out = await helm(["lint", chartDir, "--strict", "-f", await valuesFile(values)]);
      assert.match(out, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  it("helm template renders exactly what the helm-free renderer renders", async () => {
    const variants: { release: string; namespace: string; values: Record<string, unknown> }[] = [
      { release: "kro-ts", namespace: "kro-system", values: {} },
      {
        release: "prod",
        namespace: "platform",
        values: { rbac: { mode: "unrestricted" }, image: { repository: "r.example/kro", tag: "9" } },
      },
      {
        release: "kro-ts",
        namespace: "kro-system",
        values: {
          replicaCount: 1,
          leaderElection: { enabled: false },
          metrics: { serviceMonitor: { enabled: true, labels: { team: "a" } } },
          extraArgs: ["--x=1"],
        },
      },
      {
        release: "kro-ts",
        namespace: "kro-system",
        values: { metrics: { service: { enabled: false }, podMonitor: { enabled: true, labels: { team: "b" } } } },
      },
      {
        release: "kro-ts",
        namespace: "kro-system",
        values: { ui: { enabled: true, port: 9090, tls: { secretName: "kro-ui-cert" } } },
      },
      {
        release: "kro-ts",
        namespace: "kro-system",
        values: {
          ui: { enabled: true },
          networkPolicy: {
            enabled: true,
            webhookFrom: [{ ipBlock: { cidr: "10.0.0.0/24" } }],
            otherFrom: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }],
          },
        },
      },
      {
        release: "kro-ts",
        namespace: "kro-system",
        values: {
          resources: { limits: null },
          allowCRDDeletion: true,
          log: { level: "debug", format: "text" },
          client: { qps: 20.5, burst: 30 },
        },
      },
    ];
    for (const v of variants) {
      const out = await helm([
        "template",
        v.release,
        chartDir,
        "-n",
        v.namespace,
        "--include-crds",
        "-f",
        await valuesFile(v.values),
      ]);
      const fromHelm = parseAllDocuments(out)
        .map((d) => d.toJS() as Obj | null)
        .filter((o) => o !== null);
      const ours = renderChart(chart, {
        releaseName: v.release,
        namespace: v.namespace,
        service: "Helm",
        values: v.values,
      });
      assert.deepEqual(
        sorted([...ours.crdObjects, ...ours.objects] as Obj[]),
        sorted(fromHelm),
        JSON.stringify(v.values),
      );
    }
  });

  it("fails in helm with the chart's own messages for bad values", async () => {
    await assert.rejects(
      helm(["template", "x", chartDir, "--set", "leaderElection.enabled=false"]),
      (error: unknown) => {
        assert.ok(error instanceof HelmError);
        assert.match(error.stderr, /replicaCount: 2 replicas need leaderElection\.enabled=true/);
        return true;
      },
    );
    // A policy that would shut the API server out of the webhook is refused, saying what to list.
    await assert.rejects(helm(["template", "x", chartDir, "--set", "networkPolicy.enabled=true"]), (error: unknown) => {
      assert.ok(error instanceof HelmError);
      assert.match(error.stderr, /networkPolicy\.webhookFrom must list where the API server calls from/);
      return true;
    });
    // values.schema.json catches a bad enum before the templates run.
    await assert.rejects(helm(["template", "x", chartDir, "--set", "rbac.mode=admin"]), (error: unknown) => {
      assert.ok(error instanceof HelmError);
      assert.match(error.stderr, /rbac\/mode.*aggregation.*unrestricted/);
      return true;
    });
  });

  it("installs on the real control plane and uninstalls cleanly", async (t) => {
    const ns = await testNamespace(t, "helm");
    const release = `helm-${randomBytes(3).toString("hex")}`;
    const fullname = `${release}-kro-ts`;
    const { kubeconfig } = testCluster();
    const out = await helm(["install", release, chartDir, "-n", ns, "--kubeconfig", kubeconfig]);
    assert.match(out, /STATUS: deployed/);
    assert.match(out, /RBAC mode: aggregation/);
    const deployment = await kubectlJson<{
      spec: { replicas: number; template: { spec: { serviceAccountName: string } } };
    }>(["get", "deployment", fullname, "-n", ns]);
    assert.equal(deployment.spec.replicas, 2);
    assert.equal(deployment.spec.template.spec.serviceAccountName, fullname);
    await kubectl(["get", "serviceaccount", fullname, "-n", ns]);
    await kubectl(["get", "clusterrole", fullname, `${fullname}:base`]);
    await kubectl(["get", "role,rolebinding", `${fullname}:leader-election`, "-n", ns]);
    await eventually(
      async () => {
        const pods = await kubectlJson<{ items: unknown[] }>([
          "get",
          "pods",
          "-n",
          ns,
          "-l",
          `app.kubernetes.io/instance=${release}`,
        ]);
        assert.equal(pods.items.length, 2);
      },
      { timeout: 60_000, interval: 500 },
    );

    await helm(["uninstall", release, "-n", ns, "--kubeconfig", kubeconfig]);
    await eventually(async () => {
      // kube-controller-manager's ClusterRole aggregation writes aggregated roles with a
      // server-side apply; one still queued when Helm deletes the role re-creates it, bare (seen
      // under heavy load). Helm's own object — with its release annotation — must be gone.
      const left = await kubectlJson<{ metadata: { annotations?: Record<string, string> } }>([
        "get",
        "clusterrole",
        fullname,
      ]).catch((error: unknown) => {
        if (error instanceof KubectlError && /NotFound/.test(error.stderr)) return undefined;
        throw error;
      });
      assert.equal(
        left?.metadata.annotations?.["meta.helm.sh/release-name"],
        undefined,
        "Helm's ClusterRole is still there after uninstall",
      );
    });
    await kubectl(["delete", "clusterrole", fullname, "--ignore-not-found"]);
    // Helm never deletes CRDs: the RGD CRD stays for other releases and the manifest install.
    await kubectl(["get", "crd", "resourcegraphdefinitions.kro.run"]);
  });
});
