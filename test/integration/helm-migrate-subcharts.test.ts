/**
 * `kro import helm --release` of a release whose chart has a subchart (aliased, with a condition
 * and import-values), on the local cluster with the real helm: Helm keeps no subchart in its
 * release record, so the chart the release came from is passed with --chart. After the migration
 * every object of the release and of its subchart is the same object (same UID), no pod was
 * restarted, the instance is Ready, and a change to the subchart's values rolls out through the
 * controller without deleting anything.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { runKro } from "../support/cli-session.js";
import { eventually } from "../support/eventually.js";
import { helm } from "../support/helm.js";
import { assertNothingRecreated, releaseCensus } from "../support/release-census.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

const chartDir = fileURLToPath(new URL("../../../test/fixtures/helm/stack", import.meta.url));
const suffix = letterSuffix();
const namespace = `helm-subcharts-${suffix}`;
const kind = `Stack${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const group = `${suffix}.subcharts.kro-ts.test`;
const resource = `${kind.toLowerCase()}s.${group}`;
let tc: TestController;

const kro = (args: readonly string[]) => runKro([...args, "--kubeconfig", testCluster().kubeconfig]);

describe("kro import helm --release of a chart with subcharts", { timeout: 400_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", "-l", `${tc.label.key}=${tc.label.value}`, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", resource, "--wait=false", "--ignore-not-found"]);
  });

  it("adopts the release and its subchart's objects in place, with --chart supplying the subcharts", async () => {
    const release = "st";
    await helm([
      "install",
      release,
      chartDir,
      "-n",
      namespace,
      "--set",
      "replicas=3",
      "--kubeconfig",
      testCluster().kubeconfig,
    ]);
    const before = await eventually(
      async () => {
        const census = await releaseCensus(namespace, release);
        assert.equal(
          [...census.workload.keys()].filter((k) => k.startsWith("Pod/")).length,
          4,
          "3 web pods and 1 cache pod run",
        );
        return census;
      },
      { timeout: 120_000 },
    );
    assert.deepEqual([...before.objects.keys()].sort(), [
      "ConfigMap/st-redis-conf",
      "Deployment/st-redis",
      "Deployment/st-web",
      "Service/st-web",
    ]);

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
    ];
    await assert.rejects(kro(migrate), /declares subcharts \(redis\)[\s\S]*--chart/);
    const done = await kro([...migrate, "--chart", chartDir, "--apply", "--timeout", "90s"]);
    assert.match(done.stderr, /Deployment .*st-redis \(uid [0-9a-f-]+\): adopt in place, unchanged/);
    assert.match(done.stderr, /Deployment .*st-web \(uid [0-9a-f-]+\): adopt in place, unchanged/);
    assert.match(done.stderr, /adopted 4 object\(s\) in place \(same UIDs\)/);
    assertNothingRecreated(before, await releaseCensus(namespace, release), "migration");
    const web = await kubectlJson<{ spec: { template: { spec: { containers: { env: { value: string }[] }[] } } } }>([
      "get",
      "deployment",
      "st-web",
      "-n",
      namespace,
    ]);
    assert.equal(
      web.spec.template.spec.containers[0]?.env[0]?.value,
      "cache.local",
      "the value the subchart exports reached the parent",
    );

    await kubectl([
      "patch",
      resource,
      release,
      "-n",
      namespace,
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { redis: { replicas: 2 } } }),
    ]);
    await eventually(
      async () => {
        const d = await kubectlJson<{ spec: { replicas: number }; status?: { availableReplicas?: number } }>([
          "get",
          "deployment",
          "st-redis",
          "-n",
          namespace,
        ]);
        assert.equal(d.spec.replicas, 2);
        assert.equal(d.status?.availableReplicas, 2);
      },
      { timeout: 90_000 },
    );
    assert.deepEqual(
      [...(await releaseCensus(namespace, release)).objects].sort(),
      [...before.objects].sort(),
      "nothing deleted or recreated by the change",
    );
  });
});
