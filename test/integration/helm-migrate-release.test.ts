/**
 * `kro import helm --release` on the local cluster with the real helm: the release record Helm
 * wrote is read back (Secret and ConfigMap drivers), and the whole migration runs as a user would
 * run it — `helm install`, then the `kro` CLI with --apply while a controller runs — after which
 * the release's objects are the same objects (same UIDs), its pods were not restarted, the
 * instance is Ready, a spec change rolls out, nothing was deleted; running it twice changes
 * nothing, and --remove-release-record makes helm forget the release without touching it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import { readLiveRelease } from "../../src/cli/import-helm/helm-release.js";
import { runKro } from "../support/cli-session.js";
import { eventually } from "../support/eventually.js";
import { migrateArgs } from "../support/helm-migration.js";
import { helm, helmBinary, HelmError } from "../support/helm.js";
import { assertNothingRecreated, releaseCensus, type ReleaseCensus } from "../support/release-census.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

const run = promisify(execFile);
const chartDir = fileURLToPath(new URL("../../../examples/helm-nginx/chart", import.meta.url));
const zeroValuesChart = fileURLToPath(new URL("../../../test/fixtures/helm/zero-values", import.meta.url));
const suffix = letterSuffix();
const namespace = `helm-migrate-${suffix}`;
const kind = `Migrate${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const group = `${suffix}.migrate.kro-ts.test`;
const resource = `${kind.toLowerCase()}s.${group}`;
let tc: TestController;

const kro = (args: readonly string[]) => runKro([...args, "--kubeconfig", testCluster().kubeconfig]);

async function installed(
  release: string,
  extra: readonly string[] = [],
  env: Record<string, string> = {},
  chart = chartDir,
): Promise<ReleaseCensus> {
  const args = [
    "install",
    release,
    chart,
    "-n",
    namespace,
    "--set",
    "replicaCount=3",
    "--kubeconfig",
    testCluster().kubeconfig,
    ...extra,
  ];
  if (Object.keys(env).length === 0) await helm(args);
  else await run(await helmBinary(), args, { env: { ...process.env, ...env } });
  return eventually(
    async () => {
      const census = await releaseCensus(namespace, release);
      assert.equal([...census.workload.keys()].filter((k) => k.startsWith("Pod/")).length, 3, "the release's pods run");
      return census;
    },
    { timeout: 120_000 },
  );
}

describe("kro import helm --release", { timeout: 400_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", "-l", `${tc.label.key}=${tc.label.value}`, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", resource, `zero${resource}`, "--wait=false", "--ignore-not-found"]);
  });

  it("reads the record helm wrote, with the Secret and the ConfigMap driver", async () => {
    await installed("rec");
    const fromSecret = await readLiveRelease(tc.client, "rec", namespace);
    assert.equal(fromSecret.driver, "Secret");
    assert.deepEqual(
      [fromSecret.release.version, fromSecret.release.status, fromSecret.release.config],
      [1, "deployed", { replicaCount: 3 }],
    );
    assert.equal(
      fromSecret.release.manifest.trim(),
      (await helm(["get", "manifest", "rec", "-n", namespace, "--kubeconfig", testCluster().kubeconfig])).trim(),
    );
    assert.deepEqual(fromSecret.release.chart.templates.map((t) => t.name).sort(), [
      "templates/_helpers.tpl",
      "templates/deployment.yaml",
      "templates/ingress.yaml",
      "templates/service.yaml",
    ]);

    await installed("cmrec", [], { HELM_DRIVER: "configmap" });
    const fromConfigMap = await readLiveRelease(tc.client, "cmrec", namespace);
    assert.equal(fromConfigMap.driver, "ConfigMap");
    assert.deepEqual(fromConfigMap.release.config, { replicaCount: 3 });
    await assert.rejects(
      readLiveRelease(tc.client, "absent", namespace),
      /no Helm 3 release "absent" in namespace helm-migrate-/,
    );
  });

  it("migrates in place: same UIDs, no restart, Ready, spec change rolls out, nothing deleted; twice is a no-op; the record goes on request", async () => {
    const release = "web";
    const before = await installed(release);
    const migrate = migrateArgs({
      release,
      namespace,
      kind: kind,
      group,
      rgdLabel: `${tc.label.key}=${tc.label.value}`,
    });
    const first = await kro(migrate);
    assert.match(first.stderr, /Deployment .*web-nginx \(uid [0-9a-f-]+\): adopt in place, unchanged/);
    assert.match(first.stderr, /adopted 3 object\(s\) in place \(same UIDs\)/);
    assert.match(first.stderr, /marked Helm's release .*web revision 1 uninstalled/);
    assertNothingRecreated(before, await releaseCensus(namespace, release), "migration");
    const instance = await kubectlJson<{
      metadata: { annotations?: Record<string, string> };
      status?: { state?: string };
    }>(["get", resource, release, "-n", namespace]);
    assert.equal(instance.status?.state, "ACTIVE");
    assert.equal(instance.metadata.annotations?.["kro.run/adopt"], "true");

    // The same command again: nothing to adopt anew, nothing recreated, no restart.
    const second = await kro(migrate);
    assert.match(second.stderr, /adopted 3 object\(s\) in place/);
    assert.match(second.stderr, /exists \(migrated before\)/);
    assertNothingRecreated(before, await releaseCensus(namespace, release), "second migration");

    // A spec change now rolls out through the controller.
    await kubectl([
      "patch",
      resource,
      release,
      "-n",
      namespace,
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { replicaCount: 2, image: { tag: "1.22.0" } } }),
    ]);
    await eventually(
      async () => {
        const d = await kubectlJson<{
          spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
          status?: { updatedReplicas?: number; availableReplicas?: number };
        }>(["get", "deployment", `${release}-nginx`, "-n", namespace]);
        assert.equal(d.spec.template.spec.containers[0]?.image, "nginx:1.22.0");
        assert.equal(d.spec.replicas, 2);
        assert.equal(d.status?.updatedReplicas, 2);
        assert.equal(d.status.availableReplicas, 2);
      },
      { timeout: 90_000 },
    );
    assert.deepEqual(
      [...(await releaseCensus(namespace, release)).objects].sort(),
      [...before.objects].sort(),
      "nothing deleted or recreated by the rollout",
    );

    // Removing the record: helm forgets the release, its objects stay.
    // Run again after the change, now removing the record: the instance's spec is kept (no
    // reset to the record's older values, so no rollback), and helm forgets the release.
    const third = await kro([...migrate, "--remove-release-record"]);
    assert.match(third.stderr, /exists \(migrated before\): its spec is kept/);
    assert.match(third.stderr, /removed Helm's release record \(1 revision\(s\), Secrets owner=helm,name=web\)/);
    assert.doesNotMatch(await helm(["list", "-n", namespace, "--kubeconfig", testCluster().kubeconfig]), /^web\s/m);
    await assert.rejects(
      helm(["status", release, "-n", namespace, "--kubeconfig", testCluster().kubeconfig]),
      (e: unknown) => e instanceof HelmError && /release: not found/.test(e.stderr),
    );
    assert.deepEqual([...(await releaseCensus(namespace, release)).objects].sort(), [...before.objects].sort());
  });

  it("adopts without --allow-rollout a chart whose zero values the API server drops: the server's dry run says no pod restarts", async () => {
    // hostNetwork: false, initialDelaySeconds: 0, nodeSelector: {}, tolerations: [] — rendered by the chart, never stored.
    const release = "zero";
    const before = await installed(release, [], {}, zeroValuesChart);
    const migrate = migrateArgs({
      release,
      namespace,
      kind: `Zero${kind}`,
      group,
      rgdLabel: `${tc.label.key}=${tc.label.value}`,
    });
    const out = await kro(migrate);
    assert.match(out.stderr, /Deployment .*zero-zero \(uid [0-9a-f-]+\): adopt in place, unchanged\n/, out.stderr);
    assert.doesNotMatch(out.stderr, /ROLLS ITS PODS|compared offline/);
    assert.match(out.stderr, /adopted 1 object\(s\) in place \(same UIDs\)/);
    assertNothingRecreated(before, await releaseCensus(namespace, release), "zero-values migration");
    const instance = await kubectlJson<{ status?: { state?: string } }>([
      "get",
      `zero${resource}`,
      release,
      "-n",
      namespace,
    ]);
    assert.equal(instance.status?.state, "ACTIVE");
  });

  it("refuses, writing nothing, a migration that would roll pods", async () => {
    const release = "drift";
    await installed(release);
    // Someone changed the pod template by hand after the install: adopting would roll it back.
    await kubectl(["set", "image", `deployment/${release}-nginx`, "-n", namespace, "nginx=nginx:hotfix"]);
    // The census is the baseline "nothing restarted" is judged against: take it once the hand-made
    // rollout has finished, not while old pods are still being replaced (seen once in CI).
    await kubectl(["rollout", "status", `deployment/${release}-nginx`, "-n", namespace, "--timeout=120s"]);
    const census = await eventually(
      async () => {
        const c = await releaseCensus(namespace, release);
        assert.equal([...c.workload.keys()].filter((k) => k.startsWith("Pod/")).length, 3);
        return c;
      },
      { timeout: 120_000 },
    );
    const migrate = [
      "import",
      "helm",
      "--release",
      release,
      "-n",
      namespace,
      "--kind",
      kind,
      "--group",
      group,
      "--rgd-label",
      `${tc.label.key}=${tc.label.value}`,
      "--apply",
    ];
    await assert.rejects(
      kro(migrate),
      /would roll the pods of 1 workload\(s\)[\s\S]*spec\.template\.spec\.containers\[0\]\.image: "nginx:hotfix" -> "nginx:1\.21\.0"[\s\S]*Nothing was written/,
    );
    await assert.rejects(kubectl(["get", resource, release, "-n", namespace]), /NotFound/);
    assertNothingRecreated(census, await releaseCensus(namespace, release), "refused migration");
  });
});
