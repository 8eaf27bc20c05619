/**
 * The ownership fault suite: the controller as users run it (its own process), crashed with
 * `kill -9` at random moments while 200 instances converge, instances deleted while it is down,
 * and — on a cluster of its own — kube-apiserver and etcd restarted mid-convergence. After each
 * story a census lists every object carrying our labels and every object the story planted by hand:
 * 0 orphans, 0 children missing from their instance's record, 0 hand-made objects touched, every
 * surviving instance ACTIVE with its full record. The counts are printed.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createKubeClient, isNotFound, type KubeClient } from "../../src/index.js";
import { startLocalCluster } from "../../src/localcluster/index.js";
import { eventually } from "../support/eventually.js";
import { testCluster } from "../support/test-cluster.js";
import { letterSuffix } from "../support/controller.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";
import { plantLookalikes, takeCensus, type Census } from "../support/ownership-census.js";

const apiVersion = "kro.run/v1alpha1";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const randomBetween = (low: number, high: number) => low + Math.floor(Math.random() * (high - low));

interface Story {
  readonly client: KubeClient;
  readonly kubeconfig: string;
  readonly kind: string;
  readonly namespace: string;
  readonly selector: string;
}

async function prepare(client: KubeClient, kubeconfig: string): Promise<Story> {
  const suffix = letterSuffix();
  const story = {
    client,
    kubeconfig,
    kind: `Fault${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`,
    namespace: `faults-${suffix}`,
    selector: randomBytes(4).toString("hex"),
  };
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: story.namespace } });
  return story;
}

/** The RGD, once the controller installed the RGD CRD (it does so at start). */
async function defineRgd(story: Story): Promise<void> {
  const suffix = story.namespace.slice("faults-".length);
  await eventually(
    () =>
      story.client.apply(
        {
          apiVersion,
          kind: "ResourceGraphDefinition",
          metadata: { name: `faults-${suffix}`, labels: { "kro-ts.test/controller": story.selector } },
          spec: {
            schema: { apiVersion: "v1alpha1", kind: story.kind, spec: { v: "string | default=x" } },
            resources: [
              {
                id: "first",
                template: {
                  apiVersion: "v1",
                  kind: "ConfigMap",
                  metadata: { name: "${schema.metadata.name}-first" },
                  data: { v: "${schema.spec.v}" },
                },
              },
              {
                id: "second",
                template: {
                  apiVersion: "v1",
                  kind: "ConfigMap",
                  metadata: { name: "${schema.metadata.name}-second" },
                  data: { v: "${first.data.v}" },
                },
              },
              {
                id: "third",
                template: {
                  apiVersion: "v1",
                  kind: "ConfigMap",
                  metadata: { name: "${schema.metadata.name}-third" },
                  data: { v: "${second.data.v}" },
                },
              },
            ],
          },
        },
        { fieldManager: "faults-test", force: true },
      ),
    { timeout: 60_000 },
  );
}

const startController = (story: Story): Promise<ControllerProcess> =>
  startControllerProcess(story.kubeconfig, [
    "--rgd-selector",
    `kro-ts.test/controller=${story.selector}`,
    "--log-level",
    "info",
  ]);

async function waitServed(story: Story): Promise<void> {
  await defineRgd(story);
  await eventually(
    async () => {
      await story.client.list(apiVersion, story.kind, { namespace: story.namespace, limit: 1 });
    },
    { timeout: 60_000 },
  );
}

async function createInstances(story: Story, names: readonly string[]): Promise<void> {
  await Promise.all(
    names.map((name) =>
      story.client.create({
        apiVersion,
        kind: story.kind,
        metadata: { name, namespace: story.namespace },
        spec: { v: name },
      }),
    ),
  );
}

async function deleteInstances(story: Story, names: readonly string[]): Promise<void> {
  await Promise.all(
    names.map(async (name) => {
      await story.client
        .delete({ apiVersion, kind: story.kind, namespace: story.namespace, name })
        .catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
    }),
  );
}

/** The first instance left behind, as the controller describes it (the failure message names the cause). */
async function whyNotReady(story: Story, name: string): Promise<string> {
  const instance = await story.client
    .get({ apiVersion, kind: story.kind, namespace: story.namespace, name })
    .catch((error: unknown) => ({ error: String(error) }));
  return `instance ${name} is not Ready: ${JSON.stringify({ annotations: (instance as { metadata?: { annotations?: unknown } }).metadata?.annotations, status: (instance as { status?: unknown }).status, error: (instance as { error?: string }).error })}`;
}

async function settledCensus(
  story: Story,
  planted: Parameters<typeof takeCensus>[1]["planted"],
  expectInstances: number,
): Promise<Census> {
  return eventually(
    async () => {
      const census = await takeCensus(story.client, {
        apiVersion,
        kind: story.kind,
        namespace: story.namespace,
        childrenPerInstance: 3,
        planted,
      });
      const left = (await story.client.list(apiVersion, story.kind, { namespace: story.namespace })).items.length;
      assert.equal(left, expectInstances, "instances left");
      assert.deepEqual(
        census,
        { orphans: [], unrecorded: [], foreignTouched: [], notReady: [] },
        census.notReady.length === 0
          ? undefined
          : `${JSON.stringify(census)}; ${await whyNotReady(story, census.notReady[0] ?? "")}`,
      );
      return census;
    },
    { timeout: 300_000, interval: 2_000 },
  );
}

describe("ownership under faults", { timeout: 1_200_000 }, () => {
  it("kill -9 at random moments during 200 parallel creates, deletes while down: 0 orphans, 0 foreign touched, all Ready", async (t) => {
    const { kubeconfig } = testCluster();
    const client = await createKubeClient({ kubeconfig, qps: 0 });
    t.after(() => {
      client.close();
    });
    const story = await prepare(client, kubeconfig);
    let controller = await startController(story);
    t.after(async () => {
      await controller.kill();
    });
    await waitServed(story);
    const names = Array.from({ length: 200 }, (_, i) => `f-${i}`);
    // Look-alikes: f-0's owner labels copied onto objects it never made (f-0 is deleted below).
    const planted = await plantLookalikes(client, story.namespace, 5, {
      "kro.run/instance-kind": story.kind,
      "kro.run/instance-name": "f-0",
      "kro.run/instance-namespace": story.namespace,
      "kro.run/instance-group": "kro.run",
      "app.kubernetes.io/managed-by": "kro",
      "kro.run/node-id": "third",
    });
    const creating = createInstances(story, names);
    let crashes = 0;
    for (let i = 0; i < 3; i++) {
      await sleep(randomBetween(300, 2_500));
      await controller.kill();
      crashes++;
      controller = await startController(story);
    }
    await creating;
    await sleep(randomBetween(200, 1_500));
    await controller.kill();
    crashes++;
    const deleted = names.slice(0, 50);
    await deleteInstances(story, deleted);
    await sleep(1_000);
    controller = await startController(story);
    const census = await settledCensus(story, planted, 150);
    console.log(
      `kill -9 story: ${crashes} crashes, 200 created, 50 deleted while down: ${census.orphans.length} orphans, ${census.unrecorded.length} unrecorded, ${census.foreignTouched.length} foreign touched, ${census.notReady.length} not ready`,
    );
    await deleteInstances(story, names.slice(50));
    const after = await settledCensus(story, planted, 0);
    console.log(
      `kill -9 story, all deleted: ${after.orphans.length} orphans, ${after.foreignTouched.length} foreign touched`,
    );
  });

  it("kube-apiserver restart and etcd restart mid-convergence: 0 orphans, all Ready", async (t) => {
    const cluster = await startLocalCluster({ mode: "minimal", env: process.env });
    t.after(async () => {
      await cluster.stop();
    });
    const client = await createKubeClient({ kubeconfig: cluster.kubeconfigPath, qps: 0 });
    t.after(() => {
      client.close();
    });
    const story = await prepare(client, cluster.kubeconfigPath);
    const controller = await startController(story);
    t.after(async () => {
      await controller.kill();
    });
    await waitServed(story);
    const names = Array.from({ length: 100 }, (_, i) => `r-${i}`);
    await createInstances(story, names.slice(0, 60));
    await sleep(randomBetween(100, 800));
    await cluster.restartComponent("kube-apiserver", { downtimeMs: 1_500 });
    await createInstances(story, names.slice(60));
    await deleteInstances(story, names.slice(0, 20));
    await sleep(randomBetween(100, 800));
    await cluster.restartComponent("etcd", { downtimeMs: 1_500 });
    await eventually(
      async () => {
        await client.list("v1", "Namespace", { limit: 1 });
      },
      { timeout: 60_000 },
    );
    await eventually(() => deleteInstances(story, names.slice(20, 40)), { timeout: 60_000 });
    const census = await settledCensus(story, [], 60);
    assert.ok(controller.alive(), "the controller rode out both restarts");
    console.log(
      `restart story: 100 created, 40 deleted around an apiserver and an etcd restart: ${census.orphans.length} orphans, ${census.notReady.length} not ready`,
    );
  });
});
