/**
 * Helm hooks of an imported chart on the real control plane (helm-import.md, Hooks): install
 * hooks run once, in hook-weight order, before the chart's objects; on a spec change (one `helm
 * upgrade`) the upgrade Jobs run again under generation-suffixed names and the previous runs are
 * pruned, while install-only hooks are left exactly as they were (same UID, never re-applied,
 * although the values they render from changed); post hooks run after the objects.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { HelmImportResult } from "../../src/helm/index.js";
import { eventually } from "../support/eventually.js";
import { letterSuffix, startTestController, waitRgdActive, type TestController } from "../support/controller.js";
import { installImportedChart, type InstalledChart } from "../support/imported-chart.js";
import { expectAbsent, kubectl, kubectlJson, testNamespace } from "../support/test-cluster.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface Live {
  metadata: { uid: string; creationTimestamp: string };
  spec?: { template?: { spec: { containers: { image: string }[] } } };
  data?: Record<string, string>;
}
interface Child {
  id: string;
  dependsOn?: string[];
}

describe("Helm hooks of an imported chart on the cluster", { timeout: 300_000 }, () => {
  let tc: TestController;
  let imported: HelmImportResult;
  let installed: InstalledChart | undefined;
  const kind = `Hooks${letterSuffix()}App`;
  const group = "hooks.test.kro.run";
  const plural = `${kind.toLowerCase()}s.${group}`;

  before(async () => {
    tc = await startTestController();
    installed = await installImportedChart(tc, path.join(ROOT, "test/fixtures/helm/hooks"), { kind, group });
    imported = installed.imported;
  });
  after(async () => {
    await installed?.remove();
    await tc.stop();
  });

  it("declares Helm's hook order: weight, then kind, then name, pre hooks before everything, post hooks after", () => {
    const children = (imported.rgd as { spec: { childResources: Child[] } }).spec.childResources;
    const deps = Object.fromEntries(children.map((c) => [c.id, c.dependsOn ?? []]));
    assert.deepEqual(deps.seedSecret, [], "weight -10 runs first");
    assert.deepEqual(deps.initJob, ["seedSecret"]);
    assert.deepEqual(deps.migrateJob, ["initJob"]);
    assert.deepEqual(deps.checkJob, ["migrateJob"]);
    assert.deepEqual([...(deps.appConfigMap ?? [])].sort(), ["checkJob", "initJob", "migrateJob", "seedSecret"]);
    assert.deepEqual(deps.announceJob, ["appConfigMap"]);
  });

  it("runs install hooks once, re-runs upgrade Jobs per spec change, keeps install hooks untouched", async (t) => {
    await waitRgdActive(installed?.rgdName ?? "");
    const ns = await testNamespace(t, "helm-hooks");
    const get = (what: string) => kubectlJson<Live>(["get", what, "-n", ns]);
    const image = (job: Live) => job.spec?.template?.spec.containers[0]?.image;
    const ready = async () => {
      const app = await kubectlJson<{ status?: { state?: string; conditions?: { type: string; status: string }[] } }>([
        "get",
        plural,
        "rel",
        "-n",
        ns,
      ]);
      assert.equal(app.status?.conditions?.find((c) => c.type === "Ready")?.status, "True", JSON.stringify(app.status));
    };
    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({ ...imported.instance, metadata: { name: "rel", namespace: ns }, spec: { tag: "1.36" } }),
    );

    await eventually(
      async () => {
        await ready();
        assert.equal((await get("configmap/rel-app")).data?.tag, "1.36");
        await get("job/rel-announce");
      },
      { timeout: 120_000 },
    );
    const seed = await get("secret/rel-seed");
    const init = await get("job/rel-init");
    const migrate = await get("job/rel-migrate");
    const app = await get("configmap/rel-app");
    await expectAbsent(["job", "rel-check", "-n", ns]);
    // Each hook was created after the one before it in weight order had completed, the chart's objects after all of them.
    assert.ok(
      seed.metadata.creationTimestamp <= init.metadata.creationTimestamp &&
        init.metadata.creationTimestamp <= migrate.metadata.creationTimestamp,
    );
    assert.ok(migrate.metadata.creationTimestamp <= app.metadata.creationTimestamp);

    await kubectl(["patch", plural, "rel", "-n", ns, "--type=merge", "-p", JSON.stringify({ spec: { tag: "1.37" } })]);
    await eventually(
      async () => {
        assert.equal(image(await get("job/rel-migrate-2")), "busybox:1.37");
        assert.equal(image(await get("job/rel-check-2")), "busybox:1.37");
        assert.equal(image(await get("job/rel-announce-2")), "busybox:1.37");
        assert.equal((await get("configmap/rel-app")).data?.tag, "1.37");
        await expectAbsent(["job", "rel-migrate", "-n", ns]);
        await expectAbsent(["job", "rel-announce", "-n", ns]);
        await ready();
      },
      { timeout: 120_000 },
    );
    const initAfter = await get("job/rel-init");
    assert.equal(initAfter.metadata.uid, init.metadata.uid, "the install-only hook Job is the same object");
    assert.equal(image(initAfter), "busybox:1.36", "and was not re-applied with the new values");
    const seedAfter = await get("secret/rel-seed");
    assert.equal(seedAfter.metadata.uid, seed.metadata.uid);
    assert.equal(
      Buffer.from(seedAfter.data?.tag ?? "", "base64").toString(),
      "1.36",
      "the install hook Secret keeps what the install wrote",
    );

    await kubectl(["delete", plural, "rel", "-n", ns, "--wait=false"]);
    await eventually(
      async () => {
        for (const what of ["secret/rel-seed", "job/rel-init", "job/rel-migrate-2", "configmap/rel-app"])
          await expectAbsent([...what.split("/"), "-n", ns]);
      },
      { timeout: 60_000 },
    );
  });
});

/**
 * A hook runs once per generation, whatever deletes it once it has finished: Kubernetes' TTL
 * controller (ttlSecondsAfterFinished: 0, the local control plane runs it) or the controller
 * itself honouring `hook-delete-policy: hook-succeeded`. The finished run is neither created
 * again nor waited for; the next spec change runs the upgrade hooks once more.
 */
describe("Helm hook runs of an imported chart: once per generation", { timeout: 300_000 }, () => {
  let tc: TestController;
  let installed: InstalledChart | undefined;
  const kind = `HookRuns${letterSuffix()}App`;
  const group = "hookruns.test.kro.run";
  const plural = `${kind.toLowerCase()}s.${group}`;

  before(async () => {
    tc = await startTestController();
    installed = await installImportedChart(tc, path.join(ROOT, "test/fixtures/helm/hook-runs"), { kind, group });
  });
  after(async () => {
    await installed?.remove();
    await tc.stop();
  });

  interface App {
    metadata: { generation: number; annotations?: Record<string, string> };
    status?: { conditions?: { type: string; status: string; observedGeneration?: number }[] };
  }

  it("a Job deleted by its TTL is not created again, a hook-succeeded Job is deleted once done, the instance stays Ready; a spec change runs the upgrade hooks once; also across a controller restart", async (t) => {
    await waitRgdActive(installed?.rgdName ?? "");
    const ns = await testNamespace(t, "helm-hook-runs");
    const app = () => kubectlJson<App>(["get", plural, "rel", "-n", ns]);
    // Created (server-side apply answers 201) by this test's controllers (the one before a restart too).
    let earlier: TestController["requests"] = [];
    const creates = (job: string) =>
      [...earlier, ...tc.requests].filter(
        (r) => r.verb === "PATCH" && r.status === 201 && r.path.endsWith(`/namespaces/${ns}/jobs/${job}`),
      ).length;
    const readyAt = async (generation: number) => {
      const live = await app();
      const ready = live.status?.conditions?.find((c) => c.type === "Ready");
      assert.equal(ready?.status, "True", JSON.stringify(live.status));
      assert.equal(ready.observedGeneration, generation, JSON.stringify(live.status));
      return live;
    };
    const recorded = (live: App): unknown =>
      JSON.parse(live.metadata.annotations?.["internal.kro.run/hook-runs"] ?? "null");
    const jobs = async () =>
      (await kubectl(["get", "jobs", "-n", ns, "-o", "name"])).split("\n").filter((l) => l !== "");
    const tag = async () => (await kubectlJson<Live>(["get", "configmap/rel-app", "-n", ns])).data?.tag;
    // One more pass of the controller, begun after everything above: the chart's ConfigMap is
    // deleted, and the controller creates it again.
    const anotherPass = async () => {
      const before = (await kubectlJson<Live>(["get", "configmap/rel-app", "-n", ns])).metadata.uid;
      await kubectl(["delete", "configmap", "rel-app", "-n", ns]);
      await eventually(
        async () => {
          const again = await kubectlJson<Live>(["get", "configmap/rel-app", "-n", ns]);
          assert.notEqual(again.metadata.uid, before);
        },
        { timeout: 60_000 },
      );
    };

    await kubectl(
      ["apply", "-f", "-"],
      JSON.stringify({
        ...installed?.imported.instance,
        metadata: { name: "rel", namespace: ns },
        spec: { tag: "1.36" },
      }),
    );
    await eventually(
      async () => {
        const live = await readyAt(1);
        assert.deepEqual(recorded(live), { generation: 1, done: ["Job/rel-migrate", "Job/rel-notify"] });
        assert.equal(await tag(), "1.36");
        assert.deepEqual(await jobs(), [], "the TTL deleted rel-migrate, the controller rel-notify");
      },
      { timeout: 120_000 },
    );
    await anotherPass();
    await readyAt(1);
    assert.deepEqual(await jobs(), [], "no run was created again");
    assert.equal(creates("rel-migrate"), 1, "the pre-install Job ran once");
    assert.equal(creates("rel-notify"), 1, "the post-install Job ran once");

    // A restarted controller knows from the instance which runs are done: nothing runs again.
    earlier = tc.requests;
    await tc.stop();
    tc = await startTestController({ label: tc.label });
    await anotherPass();
    await readyAt(1);
    assert.deepEqual(await jobs(), [], "no run was created again after the restart");
    assert.equal(creates("rel-migrate"), 1);
    assert.equal(creates("rel-notify"), 1);

    await kubectl(["patch", plural, "rel", "-n", ns, "--type=merge", "-p", JSON.stringify({ spec: { tag: "1.37" } })]);
    await eventually(
      async () => {
        const live = await readyAt(2);
        assert.deepEqual(recorded(live), { generation: 2, done: ["Job/rel-migrate-2", "Job/rel-notify-2"] });
        assert.equal(await tag(), "1.37");
        assert.deepEqual(await jobs(), []);
      },
      { timeout: 120_000 },
    );
    await anotherPass();
    await readyAt(2);
    assert.deepEqual(await jobs(), [], "no run was created again");
    assert.equal(creates("rel-migrate-2"), 1, "the pre-upgrade Job ran once");
    assert.equal(creates("rel-notify-2"), 1, "the post-upgrade Job ran once");
    assert.equal(creates("rel-migrate"), 1, "the install run was not created again");
  });
});
