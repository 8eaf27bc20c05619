/**
 * Progressive propagation on the real control plane (docs/design/rollouts.md), with 100 instances
 * of one RGD whose policy has a canary wave (a label), a half (percent) and everyone, at most 10
 * instances moved and not yet healthy at once, a 20 s gate and automatic rollback.
 *  - A good change reaches the canary first and then everyone, and the budget holds at every
 *    write: every status write of every instance, as the API server's watch reports them in
 *    order, is replayed and the number of instances moved to the target and not yet healthy there
 *    never exceeds 10 (checked by replay, not by sampling).
 *  - A bad change (its readiness never holds) stops after the canary: the RGD says why and names
 *    it, the canary goes back to the previous revision and is Ready again, and no other
 *    instance's ConfigMap is written (same resourceVersions before and after).
 *  - The leader of two controller processes killed with SIGKILL in the middle of the next change's
 *    second wave: the standby takes over there, within the same budget, and moves no instance twice.
 *  - `kro diff` of one more change names the wave each instance would take it in.
 *  - A pinned instance stays at its revision while the rest move; a pin the RGD does not allow
 *    is said on the instance (status.graphRevision.pinProblem and an Event), and goes when unpinned.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createKubeClient, type InformerLease, type KubeClient, type KubeObject } from "../../src/kube/index.js";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "../support/eventually.js";
import { kroExit } from "../support/cli-session.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

const COUNT = 100;
const MAX_UPDATING = 10;
const suffix = letterSuffix();
const kind = `Roll${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}`;
const namespace = `rollout-${suffix}`;
const rgdName = `rollout-${suffix}`;
const names = Array.from({ length: COUNT }, (_, i) => `app-${String(i).padStart(3, "0")}`);
const CANARY = "app-042";

interface RevisionRecord {
  assigned?: number;
  evaluated?: number;
  healthyAt?: string;
}
type Instance = KubeObject & { status?: { state?: string; graphRevision?: RevisionRecord } };
type Condition = { type: string; status: string; reason?: string; message?: string };

let tc: TestController;
let client: KubeClient;
let instances: InformerLease<KubeObject>;

function rgdYaml(rev: string): string {
  return `${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec: { value: string | default="a" }
  rollout:
    waves:
      - name: canary
        selector: { matchLabels: { canary: "true" } }
      - name: half
        percent: 50
      - name: everyone
    maxUpdating: ${MAX_UPDATING}
    gate: { readyWithin: 20s }
    onFailure: Rollback
    pinning: { maxRevisionsBack: 2 }
  resources:
    - id: cm
      readyWhen:
        - \${cm.data.rev != "never"}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}" }
        data: { value: "\${schema.spec.value}", rev: "${rev}" }
`;
}

const revisionOf = (o: KubeObject): RevisionRecord => (o as Instance).status?.graphRevision ?? {};
const configMaps = async (): Promise<Map<string, { rev: string; resourceVersion: string }>> => {
  const list = await client.list("v1", "ConfigMap", { namespace, labelSelector: "app.kubernetes.io/managed-by=kro" });
  return new Map(
    list.items.map((cm) => [
      cm.metadata?.name ?? "",
      {
        rev: (cm as { data?: { rev?: string } }).data?.rev ?? "",
        resourceVersion: cm.metadata?.resourceVersion ?? "",
      },
    ]),
  );
};
const propagated = async (): Promise<Condition | undefined> =>
  (await kubectlJson<{ status?: { conditions?: Condition[] } }>(["get", "rgd", rgdName])).status?.conditions?.find(
    (c) => c.type === "Propagated",
  );
const currentTarget = async (): Promise<number> =>
  (await kubectlJson<{ status?: { rollout?: { target?: number } } }>(["get", "rgd", rgdName])).status?.rollout
    ?.target ?? 0;

/** Every change of every instance, in the order the API server reports them. */
const seen: { name: string; record: RevisionRecord }[] = [];

/**
 * Replays every instance write since `from` (the fleet as it stood then, then each write in the
 * API server's order) and checks after each that at most MAX_UPDATING instances were moved to
 * `target` and not yet healthy there. Returns the first instance moved and the most at once.
 */
function replay(from: number, target: number): { firstMoved?: string; most: number; moves: Map<string, number> } {
  const fleet = new Map<string, RevisionRecord>();
  for (const name of names) fleet.set(name, {});
  for (const { name, record } of seen.slice(0, from)) fleet.set(name, record);
  let most = 0;
  let firstMoved: string | undefined;
  const moves = new Map<string, number>();
  for (const { name, record } of seen.slice(from)) {
    if (record.assigned === target && fleet.get(name)?.assigned !== target) {
      firstMoved ??= name;
      moves.set(name, (moves.get(name) ?? 0) + 1);
    }
    fleet.set(name, record);
    const updating = [...fleet.values()].filter(
      (r) => r.assigned === target && !(r.evaluated === target && r.healthyAt !== undefined),
    ).length;
    most = Math.max(most, updating);
    assert.ok(updating <= MAX_UPDATING, `${updating} instances moved and not yet healthy after a write of ${name}`);
  }
  return { ...(firstMoved === undefined ? {} : { firstMoved }), most, moves };
}

describe("rolling an RGD change across 100 instances in waves", { timeout: 600_000 }, () => {
  before(async () => {
    client = await createKubeClient({ kubeconfig: testCluster().kubeconfig, qps: 0 });
    await kubectl(["create", "namespace", namespace]);
    tc = await startTestController();
    await kubectl(["apply", "-f", "-"], rgdYaml("r1"));
    await waitRgdActive(rgdName);
    await kubectl(
      ["apply", "-f", "-"],
      names
        .map(
          (name) =>
            `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace}${name === CANARY ? ', labels: { canary: "true" }' : ""} }\nspec: { value: v }\n`,
        )
        .join("---\n"),
    );
    instances = client.informers.acquire({ apiVersion: `kro.run/v1alpha1`, kind, namespace });
    const note = (o: KubeObject) => {
      seen.push({ name: o.metadata?.name ?? "", record: revisionOf(o) });
    };
    instances.informer.addHandlers({
      onAdd: note,
      onUpdate: (_old, next) => {
        note(next);
      },
    });
    await instances.informer.waitForSync({ timeoutMs: 30_000 });
    await eventually(
      () => {
        const list = instances.informer.store.list() as Instance[];
        const active = list.filter((o) => o.status?.state === "ACTIVE" && revisionOf(o).healthyAt !== undefined);
        assert.equal(active.length, COUNT, `${active.length} of ${COUNT} ACTIVE and healthy at their revision`);
      },
      { timeout: 180_000, interval: 500 },
    );
  });
  after(async () => {
    await instances.release();
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]).catch(() => "");
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]).catch(() => "");
    client.close();
  });

  it("a good change reaches the canary first, then everyone, never more than maxUpdating moved and unhealthy at any write", async () => {
    const from = seen.length;
    await kubectl(["apply", "-f", "-"], rgdYaml("r2"));
    await eventually(
      async () => {
        assert.equal(await currentTarget(), 2);
      },
      { timeout: 60_000 },
    );
    await eventually(
      async () => {
        const cms = await configMaps();
        const done = names.filter((n) => cms.get(n)?.rev === "r2").length;
        assert.equal(done, COUNT, `${done} of ${COUNT} at r2`);
        assert.equal((await propagated())?.reason, "AllPropagated");
      },
      { timeout: 300_000, interval: 1_000 },
    );
    const { firstMoved, most } = replay(from, 2);
    assert.equal(firstMoved, CANARY, "the canary wave moves first");
    assert.ok(most > 1, `the budget was used (at most ${most} at once)`);
  });

  it("a bad change stops after the canary, rolls it back to Ready, and writes no other instance's children", async () => {
    const before = await configMaps();
    await kubectl(["apply", "-f", "-"], rgdYaml("never"));
    await eventually(
      async () => {
        const condition = await propagated();
        assert.equal(condition?.reason, "RolledBack", JSON.stringify(condition));
        assert.match(condition.message ?? "", /revision 3/);
      },
      { timeout: 180_000, interval: 1_000 },
    );
    const rgd = await kubectlJson<{ status?: { rollout?: { rejected?: { revision: number }[] } } }>([
      "get",
      "rgd",
      rgdName,
    ]);
    assert.deepEqual(
      rgd.status?.rollout?.rejected?.map((r) => r.revision),
      [3],
    );
    await eventually(
      async () => {
        const canary = await kubectlJson<Instance>(["get", kind.toLowerCase(), CANARY, "-n", namespace]);
        assert.equal(canary.status?.state, "ACTIVE", JSON.stringify(canary.status));
        assert.equal(canary.status.graphRevision?.evaluated, 2);
        assert.equal((await configMaps()).get(CANARY)?.rev, "r2", "the canary's ConfigMap is back at revision 2");
      },
      { timeout: 120_000, interval: 1_000 },
    );
    const afterward = await configMaps();
    for (const name of names) {
      if (name === CANARY) continue;
      assert.equal(afterward.get(name)?.resourceVersion, before.get(name)?.resourceVersion, `${name} was written`);
    }
  });
  it("the leader killed with SIGKILL mid-rollout: the standby takes over at the wave reached, within the budget, moving no one twice", async () => {
    // Two replicas as users deploy them (own processes, leader election); the in-process one steps aside.
    const label = tc.label;
    await tc.stop();
    const replicaArgs = [
      "--rgd-selector",
      `${label.key}=${label.value}`,
      "--leader-elect",
      "--leader-election-namespace",
      namespace,
      "--leader-election-id",
      `rollout-${suffix}`,
      "--leader-elect-lease-duration",
      "4s",
      "--leader-elect-renew-deadline",
      "3s",
      "--leader-elect-retry-period",
      "500ms",
    ];
    const leader = await startControllerProcess(testCluster().kubeconfig, replicaArgs);
    let standby: ControllerProcess | undefined;
    try {
      await eventually(
        () => {
          assert.match(leader.output(), /became leader/);
        },
        { timeout: 30_000 },
      );
      standby = await startControllerProcess(testCluster().kubeconfig, replicaArgs);
      const from = seen.length;
      await kubectl(["apply", "-f", "-"], rgdYaml("r4"));
      await eventually(
        () => {
          const moved = (instances.informer.store.list() as Instance[]).filter(
            (o) => revisionOf(o).assigned === 4 && o.metadata?.name !== CANARY,
          ).length;
          assert.ok(moved >= 5, `${moved} instances of the second wave moved`);
        },
        { timeout: 120_000, interval: 100 },
      );
      await leader.kill();
      const movedAtKill = (instances.informer.store.list() as Instance[]).filter(
        (o) => revisionOf(o).assigned === 4,
      ).length;
      assert.ok(movedAtKill < COUNT, `killed mid-rollout (${movedAtKill} of ${COUNT} moved)`);
      await eventually(
        async () => {
          const cms = await configMaps();
          const done = names.filter((n) => cms.get(n)?.rev === "r4").length;
          assert.equal(done, COUNT, `${done} of ${COUNT} at r4`);
          assert.equal((await propagated())?.reason, "AllPropagated");
        },
        { timeout: 300_000, interval: 1_000 },
      );
      assert.match(standby.output(), /became leader/, "the standby finished the rollout");
      const { firstMoved, moves } = replay(from, 4);
      assert.equal(firstMoved, CANARY);
      assert.deepEqual(
        [...moves].filter(([, n]) => n > 1),
        [],
        "no instance was moved to revision 4 twice",
      );
      assert.equal(moves.size, COUNT);
    } finally {
      if (leader.alive()) await leader.kill();
      if (standby?.alive()) await standby.stop();
      tc = await startTestController({ label });
    }
  });
  it("kro diff names the wave each instance would take the change in", async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), "kro-rollout-diff-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, "rgd.yaml");
    await writeFile(file, rgdYaml("r5"));
    const result = await kroExit(["diff", "-f", file, "--kubeconfig", testCluster().kubeconfig]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, new RegExp(`^${kind} ${namespace}/${CANARY} \\[wave 1/3 "canary"\\]$`, "m"));
    const inWave = (name: string) =>
      result.stdout.split("\n").filter((l) => l.startsWith(`${kind} `) && l.includes(`"${name}"]`)).length;
    assert.deepEqual([inWave("canary"), inWave("half"), inWave("everyone")], [1, 49, 50]);
  });
  it("a pinned instance stays while the rest move; a pin the RGD does not allow is said on the instance itself", async () => {
    const kindPlural = kind.toLowerCase();
    const stayer = "app-007";
    const refused = "app-008";
    await kubectl(["annotate", kindPlural, stayer, "-n", namespace, "kro.run/pin-graph-revision=4"]);
    await kubectl(["annotate", kindPlural, refused, "-n", namespace, "kro.run/pin-graph-revision=1"]);
    // The instance's author reads why on the instance (status and an Event), not only on the RGD.
    await eventually(
      async () => {
        const instance = await kubectlJson<Instance & { status?: { graphRevision?: { pinProblem?: string } } }>([
          "get",
          kindPlural,
          refused,
          "-n",
          namespace,
        ]);
        assert.match(instance.status?.graphRevision?.pinProblem ?? "", /revision 1/, JSON.stringify(instance.status));
        const events = await kubectlJson<{ items: { message?: string }[] }>([
          "get",
          "events",
          "-n",
          namespace,
          "--field-selector",
          `involvedObject.name=${refused},reason=PinNotHonoured`,
        ]);
        assert.ok(events.items.length > 0, "a PinNotHonoured Event");
      },
      { timeout: 60_000, interval: 500 },
    );
    await kubectl(["apply", "-f", "-"], rgdYaml("r6"));
    await eventually(
      async () => {
        const cms = await configMaps();
        const done = names.filter((n) => cms.get(n)?.rev === "r6");
        assert.equal(done.length, COUNT - 1, `${done.length} of ${COUNT - 1} at r6`);
        assert.equal(cms.get(stayer)?.rev, "r4", "the pinned instance stays at its revision");
        assert.equal((await propagated())?.reason, "AllPropagated");
      },
      { timeout: 300_000, interval: 1_000 },
    );
    // Unpinned, each returns to the rollout: the note goes, and the stayer takes the target.
    await kubectl(["annotate", kindPlural, stayer, refused, "-n", namespace, "kro.run/pin-graph-revision-"]);
    await eventually(
      async () => {
        assert.equal((await configMaps()).get(stayer)?.rev, "r6");
        const instance = await kubectlJson<Instance & { status?: { graphRevision?: { pinProblem?: string } } }>([
          "get",
          kindPlural,
          refused,
          "-n",
          namespace,
        ]);
        assert.equal(instance.status?.graphRevision?.pinProblem, undefined, "the note is cleared");
      },
      { timeout: 120_000, interval: 500 },
    );
  });
});
