/**
 * `kro import helm --release --apply` of a chart that keeps a generated password through `lookup`
 * (test/fixtures/helm/kept-password: the Secret's own value when it exists, random otherwise, and
 * the Deployment's pod template carrying the Secret's checksum), with the real helm on the local
 * cluster. The plan renders as the controller will — lookup answered from the cluster — so it
 * adopts without --allow-rollout: same UIDs, same pods, same password. Then Helm's record, as the
 * real helm reads it: the release is marked uninstalled and named after the instance, so
 * `helm list` does not show it, `helm status` does not say deployed, `helm upgrade` refuses it,
 * `helm uninstall` deletes no object; after the instance is deleted nothing says deployed, and
 * `helm rollback` hands the objects back to Helm.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { runKro } from "../support/cli-session.js";
import { eventually } from "../support/eventually.js";
import { migrateArgs } from "../support/helm-migration.js";
import { helm, HelmError } from "../support/helm.js";
import { assertNothingRecreated, releaseCensus, type ReleaseCensus } from "../support/release-census.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

const chartDir = fileURLToPath(new URL("../../../test/fixtures/helm/kept-password", import.meta.url));
const suffix = letterSuffix();
const namespace = `helm-record-${suffix}`;
const group = `${suffix}.record.kro-ts.test`;
const kindOf = (release: string) =>
  `${release.charAt(0).toUpperCase()}${release.slice(1)}${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const resourceOf = (release: string) => `${kindOf(release).toLowerCase()}s.${group}`;
let tc: TestController;

const kro = (args: readonly string[]) => runKro([...args, "--kubeconfig", testCluster().kubeconfig]);
const helmIn = (args: readonly string[]) => helm([...args, "-n", namespace, "--kubeconfig", testCluster().kubeconfig]);

async function installed(release: string): Promise<ReleaseCensus> {
  await helmIn(["install", release, chartDir]);
  return eventually(
    async () => {
      const census = await releaseCensus(namespace, release);
      assert.equal([...census.workload.keys()].filter((k) => k.startsWith("Pod/")).length, 2, "the release's pods run");
      return census;
    },
    { timeout: 120_000 },
  );
}

const migrate = (release: string) =>
  migrateArgs({ release, namespace, kind: kindOf(release), group, rgdLabel: `${tc.label.key}=${tc.label.value}` });

const password = async (release: string) =>
  (await kubectlJson<{ data: { password: string } }>(["get", "secret", `${release}-auth`, "-n", namespace])).data
    .password;

/** `helm list -a`'s row of the release: NAME … STATUS … (tab-separated columns). */
const listed = async (release: string, all: boolean) =>
  (await helmIn(["list", ...(all ? ["-a"] : [])]))
    .split("\n")
    .filter((line) => line.split("\t")[0]?.trim() === release)
    .map((line) => line.split("\t").map((c) => c.trim()));

describe(
  "kro import helm --release of a chart that keeps its password through lookup; Helm's record afterwards",
  {
    timeout: 500_000,
  },
  () => {
    before(async () => {
      tc = await startTestController();
      await kubectl(["create", "namespace", namespace]);
    });
    after(async () => {
      await tc.stop();
      await kubectl(["delete", "rgd", "-l", `${tc.label.key}=${tc.label.value}`, "--wait=false", "--ignore-not-found"]);
      await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
      await kubectl(["delete", "crd", resourceOf("kp"), resourceOf("kq"), "--wait=false", "--ignore-not-found"]);
    });

    it("adopts without --allow-rollout (the plan's lookup keeps the password); the record says uninstalled, helm upgrade refuses; after the instance is gone nothing says deployed, and helm rollback takes it back", async () => {
      const release = "kp";
      const before = await installed(release);
      const kept = await password(release);

      const first = await kro(migrate(release));
      assert.match(first.stderr, /Secret .*kp-auth \(uid [0-9a-f-]+\): adopt in place, unchanged/, first.stderr);
      assert.match(first.stderr, /Deployment .*kp-app \(uid [0-9a-f-]+\): adopt in place, unchanged/, first.stderr);
      assert.doesNotMatch(first.stderr, /ROLLS ITS PODS/);
      assert.match(first.stderr, /adopted 2 object\(s\) in place \(same UIDs\)/);
      assert.match(first.stderr, /marked Helm's release .*kp revision 1 uninstalled/);
      assertNothingRecreated(before, await releaseCensus(namespace, release), "migration");
      assert.equal(await password(release), kept, "the controller's render kept the password too");
      const instance = await kubectlJson<{ status?: { state?: string } }>([
        "get",
        resourceOf(release),
        release,
        "-n",
        namespace,
      ]);
      assert.equal(instance.status?.state, "ACTIVE");

      // What helm says now.
      assert.deepEqual(await listed(release, false), [], "helm list: not a deployed release");
      const row = await listed(release, true);
      assert.equal(row.length, 1);
      assert.equal(row[0]?.[4], "uninstalled", `helm list -a: ${JSON.stringify(row)}`);
      const status = await helmIn(["status", release, "--show-desc"]);
      assert.match(status, /^STATUS: uninstalled$/m);
      assert.match(
        status,
        new RegExp(`^DESCRIPTION: Migrated to kro-ts: ${kindOf(release)} ${namespace}/kp \\(${group}/`, "m"),
      );
      assert.doesNotMatch(status, /^STATUS: deployed/m);
      assert.match(await helmIn(["history", release]), /\tuninstalled\s*\t.*Migrated to kro-ts/);
      // helm upgrade does not silently fight the controller.
      await assert.rejects(
        helmIn(["upgrade", release, chartDir, "--reuse-values", "--set", "replicaCount=1"]),
        (e: unknown) => e instanceof HelmError && /has no deployed releases/.test(e.stderr),
      );
      assertNothingRecreated(before, await releaseCensus(namespace, release), "refused helm upgrade");

      // A migration run again accepts the record it marked and leaves it as it is.
      const second = await kro(migrate(release));
      assert.match(second.stderr, /exists \(migrated before\)/);
      assert.match(second.stderr, /was marked uninstalled \(migrated to .*\) by an earlier run/);
      assertNothingRecreated(before, await releaseCensus(namespace, release), "second migration");

      // The instance deleted: its objects are released (kept), and still nothing says deployed.
      await kubectl(["delete", resourceOf(release), release, "-n", namespace]);
      assert.deepEqual([...(await releaseCensus(namespace, release)).objects].sort(), [...before.objects].sort());
      assert.deepEqual(await listed(release, false), []);
      assert.equal((await listed(release, true))[0]?.[4], "uninstalled");
      assert.doesNotMatch(await helmIn(["status", release]), /^STATUS: deployed/m);

      // The way back to Helm: a rollback to the migrated revision, onto the same objects.
      await helmIn(["rollback", release, "1"]);
      assert.match(await helmIn(["status", release]), /^STATUS: deployed$/m);
      assert.equal(await password(release), kept);
      assertNothingRecreated(before, await releaseCensus(namespace, release), "rollback to Helm");
    });

    it("helm uninstall of a migrated release removes only its record: every object stays with the instance", async () => {
      const release = "kq";
      const before = await installed(release);
      const out = await kro(migrate(release));
      assert.match(out.stderr, /marked Helm's release .*kq revision 1 uninstalled/, out.stderr);
      await helmIn(["uninstall", release]);
      await assert.rejects(
        helmIn(["status", release]),
        (e: unknown) => e instanceof HelmError && /not found/.test(e.stderr),
      );
      assertNothingRecreated(before, await releaseCensus(namespace, release), "helm uninstall");
      const instance = await kubectlJson<{ status?: { state?: string } }>([
        "get",
        resourceOf(release),
        release,
        "-n",
        namespace,
      ]);
      assert.equal(instance.status?.state, "ACTIVE");
    });
  },
);
