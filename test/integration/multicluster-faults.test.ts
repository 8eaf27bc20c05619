/**
 * The ownership fault suite with remote children (docs/design/clusters.md): the
 * controller as users run it (its own process, `--cluster-namespace`), a hub (the test runner's
 * cluster) and a member cluster "b" (a minimal control plane this file starts, registered by a
 * kubeconfig Secret). The RGD's children alternate between the clusters — hub → b → hub → b, each
 * reading the one before — so creation and the reverse-order deletion cross the clusters at every
 * step. Rounds of parallel creates, creates deleted straight away, `kill -9` at a random moment of
 * each round, and while it is down deletes of half the round's instances (children half made,
 * half recorded) and of some older ones — all of them in the first rounds, so that the restarted
 * controller meets deletions only. The census
 * counts both clusters: 0 orphans, 0 children missing from their instance's record (or recorded
 * in the wrong cluster), 0 hand-made look-alikes touched (planted in both clusters), every
 * surviving instance ACTIVE with its 4 children recorded; after deleting everything, 0 children
 * anywhere. The counts are printed.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createKubeClient, isNotFound, type KubeClient } from "../../src/index.js";
import { startLocalCluster, type LocalCluster } from "../../src/localcluster/index.js";
import { eventually } from "../support/eventually.js";
import { testCluster } from "../support/test-cluster.js";
import { letterSuffix } from "../support/controller.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";
import { plantLookalikes, takeCensus, type Census, type Planted } from "../support/ownership-census.js";

const apiVersion = "kro.run/v1alpha1";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const randomBetween = (low: number, high: number) => low + Math.floor(Math.random() * (high - low));
/**
 * Rounds of create/delete/kill; instances per round. The first WIPE_ROUNDS delete every instance of
 * the round while the controller is down, so the restarted controller has deletions only: no
 * other instance's pass starts the member cluster's watch for them. Under ~3 minutes on 2 loaded cores.
 */
const WIPE_ROUNDS = 3;
const ROUNDS = 9;
const PER_ROUND = 30;
const CHILDREN = 4;

const suffix = letterSuffix();
const kind = `Mcfault${suffix}App`;
const namespace = `mcf-${suffix}`;
const registrations = `mcf-reg-${suffix}`;
const selector = randomBytes(4).toString("hex");

let hub: KubeClient;
let b: LocalCluster;
let bClient: KubeClient;

function kubeconfigOf(cluster: LocalCluster): string {
  return `apiVersion: v1
kind: Config
clusters: [{ name: b, cluster: { server: "${cluster.server}", certificate-authority-data: ${Buffer.from(cluster.caData).toString("base64")} } }]
users: [{ name: kro, user: { token: "${cluster.token}" } }]
contexts: [{ name: b, context: { cluster: b, user: kro } }]
current-context: b
`;
}

const startController = (): Promise<ControllerProcess> =>
  startControllerProcess(testCluster().kubeconfig, [
    "--rgd-selector",
    `kro-ts.test/controller=${selector}`,
    "--cluster-namespace",
    registrations,
    "--log-level",
    "info",
  ]);

/** hub → b → hub → b: every step of creation and of deletion crosses a cluster boundary. */
async function defineRgd(): Promise<void> {
  const cm = (name: string, data: Record<string, string>) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: `\${schema.metadata.name}-${name}` },
    data,
  });
  await eventually(
    () =>
      hub.apply(
        {
          apiVersion,
          kind: "ResourceGraphDefinition",
          metadata: { name: `mcf-${suffix}`, labels: { "kro-ts.test/controller": selector } },
          spec: {
            schema: { apiVersion: "v1alpha1", kind, spec: { v: "string | default=x" } },
            resources: [
              { id: "first", template: cm("first", { v: "${schema.spec.v}" }) },
              { id: "remote", cluster: "b", template: cm("remote", { v: "${first.data.v}" }) },
              { id: "back", template: cm("back", { remoteUid: "${remote.metadata.uid}" }) },
              { id: "last", cluster: "b", template: cm("last", { v: "${back.data.remoteUid}" }) },
            ],
          },
        },
        { fieldManager: "mcf-test", force: true },
      ),
    { timeout: 60_000 },
  );
  await eventually(
    async () => {
      await hub.list(apiVersion, kind, { namespace, limit: 1 });
    },
    { timeout: 60_000 },
  );
}

const create = (names: readonly string[]) =>
  Promise.all(names.map((name) => hub.create({ apiVersion, kind, metadata: { name, namespace }, spec: { v: name } })));
const remove = (names: readonly string[]) =>
  Promise.all(
    names.map((name) =>
      hub.delete({ apiVersion, kind, namespace, name }).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      }),
    ),
  );

async function whyNotReady(name: string): Promise<string> {
  const instance = await hub
    .get({ apiVersion, kind, namespace, name })
    .catch((error: unknown) => ({ error: String(error) }));
  return `instance ${name}: ${JSON.stringify({ annotations: (instance as { metadata?: { annotations?: unknown } }).metadata?.annotations, status: (instance as { status?: unknown }).status, error: (instance as { error?: string }).error })}`;
}

async function settledCensus(
  planted: readonly Planted[],
  survivors: number,
  controller: () => ControllerProcess,
): Promise<Census> {
  return eventually(
    async () => {
      const census = await takeCensus(hub, {
        apiVersion,
        kind,
        namespace,
        childrenPerInstance: CHILDREN,
        planted,
        clusters: { b: bClient },
      });
      const left = (await hub.list(apiVersion, kind, { namespace })).items.length;
      assert.equal(left, survivors, `instances left: ${JSON.stringify(census)}`);
      const detail =
        census.notReady.length === 0
          ? JSON.stringify(census)
          : `${JSON.stringify(census)}; ${await whyNotReady(census.notReady[0] ?? "")}`;
      assert.deepEqual(census, { orphans: [], unrecorded: [], foreignTouched: [], notReady: [] }, detail);
      return census;
    },
    { timeout: 150_000, interval: 2_000 },
  ).catch((error: unknown) => {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n--- controller output (tail) ---\n${controller().output().slice(-4_000)}`,
    );
  });
}

describe("ownership under faults, children in two clusters", { timeout: 600_000 }, () => {
  before(async () => {
    hub = await createKubeClient({ kubeconfig: testCluster().kubeconfig, qps: 0 });
    b = await startLocalCluster({ mode: "minimal", env: process.env });
    bClient = await createKubeClient({ kubeconfig: b.kubeconfigPath, qps: 0 });
    await hub.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await hub.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: registrations } });
    await bClient.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await hub.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "b-kubeconfig", namespace: registrations, labels: { "kro.run/cluster-name": "b" } },
      data: { value: Buffer.from(kubeconfigOf(b)).toString("base64") },
    });
  });
  after(async () => {
    await hub.delete({ apiVersion, kind: "ResourceGraphDefinition", name: `mcf-${suffix}` }).catch(() => undefined);
    await hub.delete({ apiVersion: "v1", kind: "Namespace", name: namespace }).catch(() => undefined);
    await hub.delete({ apiVersion: "v1", kind: "Namespace", name: registrations }).catch(() => undefined);
    hub.close();
    bClient.close();
    await b.stop();
  });

  it("kill -9 at random moments during create-then-delete races across two clusters: 0 orphans anywhere, 0 foreign touched, all Ready", async (t) => {
    let controller = await startController();
    t.after(async () => {
      await controller.kill();
    });
    await defineRgd();
    // Look-alikes in both clusters: m-0-0's owner labels copied onto objects it never made (it is raced: deleted as soon as created).
    const owner = {
      "kro.run/instance-kind": kind,
      "kro.run/instance-name": "m-0-0",
      "kro.run/instance-namespace": namespace,
      "kro.run/instance-group": "kro.run",
      "app.kubernetes.io/managed-by": "kro",
    };
    const planted = [
      ...(await plantLookalikes(bClient, namespace, 4, { ...owner, "kro.run/node-id": "remote" }, "b")),
      ...(await plantLookalikes(hub, namespace, 2, { ...owner, "kro.run/node-id": "first" })),
    ];
    const alive = new Set<string>();
    let crashes = 0;
    let created = 0;
    let deleted = 0;
    let deletedWhileDown = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const names = Array.from({ length: PER_ROUND }, (_, i) => `m-${round}-${i}`);
      // A quarter of the new instances is deleted as soon as it exists (the controller may be mid-way through its children in b).
      const raced = names.filter((_, i) => i % 4 === 0);
      const creating = create(names).then(async () => {
        await sleep(randomBetween(0, 800));
        await remove(raced);
      });
      await sleep(round < WIPE_ROUNDS ? randomBetween(300, 1_500) : randomBetween(300, 3_000));
      await controller.kill();
      crashes++;
      await creating;
      // While it is down: half of what this round created (children half made, half recorded) and
      // some older ones — or, in a wipe round, everything.
      const wipe = round < WIPE_ROUNDS;
      const whileDown = wipe
        ? names.filter((_, i) => i % 4 !== 0)
        : [
            ...names.filter((_, i) => i % 4 !== 0 && Math.random() < 0.5),
            ...[...alive].filter(() => Math.random() < 0.2),
          ];
      await remove(whileDown);
      for (const name of names) alive.add(name);
      for (const name of [...raced, ...whileDown]) alive.delete(name);
      created += names.length;
      deleted += new Set([...raced, ...whileDown]).size;
      deletedWhileDown += whileDown.length;
      controller = await startController();
    }
    // Deleted while the controller is down: its restart finds the deletions waiting, children in both clusters.
    await sleep(randomBetween(200, 1_500));
    await controller.kill();
    crashes++;
    const lastDown = [...alive].filter(() => Math.random() < 0.3);
    await remove(lastDown);
    for (const name of lastDown) alive.delete(name);
    deleted += lastDown.length;
    deletedWhileDown += lastDown.length;
    await sleep(500);
    controller = await startController();
    const census = await settledCensus(planted, alive.size, () => controller);
    const remote = (
      await bClient.list("v1", "ConfigMap", { namespace, labelSelector: `kro.run/instance-kind=${kind}` })
    ).items.length;
    assert.equal(remote, alive.size * 2 + 4, "b holds the survivors' two remote children each, plus the look-alikes");
    console.log(
      `multi-cluster kill -9 story: ${crashes} crashes, ${created} created, ${deleted} deleted (${deletedWhileDown} while down): ${census.orphans.length} orphans, ${census.unrecorded.length} unrecorded, ${census.foreignTouched.length} foreign touched, ${census.notReady.length} not ready, ${alive.size} ACTIVE`,
    );
    await remove([...alive]);
    const after = await settledCensus(planted, 0, () => controller);
    const leftInB = (
      await bClient.list("v1", "ConfigMap", { namespace, labelSelector: `kro.run/instance-kind=${kind}` })
    ).items.map((o) => o.metadata?.name);
    assert.deepEqual(
      leftInB.sort(),
      planted
        .filter((p) => p.cluster === "b")
        .map((p) => p.name)
        .sort(),
      "only the look-alikes are left in b",
    );
    console.log(
      `multi-cluster kill -9 story, all deleted: ${after.orphans.length} orphans in either cluster, ${after.foreignTouched.length} foreign touched`,
    );
  });
});
