// An informer survives its kube-apiserver being stopped and started again: objects created,
// changed and deleted around the outage are all in its store afterwards, nothing missed and
// nothing duplicated. Runs its own minimal cluster: restarting the shared one would break the
// other tests running on it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createKubeClient, type KubeObject, type WatchReconnectMetric } from "../../src/index.js";
import { startLocalCluster } from "../../src/localcluster/index.js";
import { eventually } from "../support/eventually.js";

const cm = (name: string, v: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "restart" },
  data: { v },
});

describe("informer across a kube-apiserver restart", () => {
  it("sees every create, update and delete made around the outage, exactly once", async (t) => {
    const cluster = await startLocalCluster({ mode: "minimal", env: process.env });
    t.after(async () => {
      await cluster.stop();
    });
    const reconnects: WatchReconnectMetric[] = [];
    const logs: string[] = [];
    const kube = await createKubeClient({
      kubeconfig: cluster.kubeconfigPath,
      metrics: { onWatchReconnect: (m) => reconnects.push(m) },
      logger: { info: (_f, m) => logs.push(m), warn: (_f, m) => logs.push(m) },
    });
    t.after(() => {
      kube.close();
    });
    await kube.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "restart" } });

    const informer = kube.informer({
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: "restart",
      backoff: { initialMs: 300, maxMs: 2_000 },
    });
    const events: string[] = [];
    informer.addHandlers({
      onAdd: (o) => events.push(`add ${o.metadata?.name ?? ""} ${o.metadata?.uid ?? ""}`),
      onUpdate: (_old, o) => events.push(`update ${o.metadata?.name ?? ""} ${o.metadata?.resourceVersion ?? ""}`),
      onDelete: (o) => events.push(`delete ${o.metadata?.name ?? ""} ${o.metadata?.uid ?? ""}`),
    });
    informer.start();
    t.after(async () => {
      await informer.stop();
    });
    await informer.waitForSync({ timeoutMs: 30_000 });
    // A second informer whose backoff no test run sits out (ten minutes from the first failure):
    // it must not need it — only the shared /readyz probe seeing the server back can wake it.
    const plain = kube
      .informer({
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace: "restart",
        backoff: { initialMs: 600_000, maxMs: 600_000, jitter: 0 },
      })
      .start();
    t.after(async () => {
      await plain.stop();
    });
    await plain.waitForSync({ timeoutMs: 30_000 });
    for (const name of ["keep", "change", "remove"]) await kube.create(cm(name, "1"));
    await eventually(() => {
      assert.equal(informer.store.list().filter((o) => o.metadata?.name !== "kube-root-ca.crt").length, 3);
    });

    const restartAt = performance.now();
    await cluster.restartComponent("kube-apiserver", { downtimeMs: 2_000 });
    t.diagnostic(
      `restart took ${Math.round(performance.now() - restartAt)} ms; reconnects ${JSON.stringify(reconnects.map((r) => [r.reason, r.delayMs]))}`,
    );
    // /readyz answers again: a new object must reach both informers without a backoff slept out.
    const readyAt = performance.now();
    await kube.create(cm("fresh", "1"));
    await eventually(
      () => {
        assert.ok(
          plain.store.getByName("restart", "fresh") !== undefined &&
            informer.store.getByName("restart", "fresh") !== undefined,
        );
      },
      { interval: 10, timeout: 60_000 },
    );
    t.diagnostic(
      `new object seen by both informers ${Math.round(performance.now() - readyAt)} ms after /readyz (${JSON.stringify(plain.stats.reconnects)})`,
    );
    // Right after the restart, before the informer's backoff lets it back in.
    await kube.apply(cm("change", "2"), { fieldManager: "test", force: true });
    await kube.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "restart", name: "remove" });
    await kube.create(cm("new", "1"));
    await kube.create(cm("blink", "1"));
    await kube.delete({ apiVersion: "v1", kind: "ConfigMap", namespace: "restart", name: "blink" });

    const truth = await kube.list("v1", "ConfigMap", { namespace: "restart" });
    await eventually(
      () => {
        const mine = informer.store
          .list()
          .map((o) => `${o.metadata?.name ?? ""}@${o.metadata?.resourceVersion ?? ""}`)
          .sort();
        assert.deepEqual(
          mine,
          truth.items.map((o) => `${o.metadata?.name ?? ""}@${o.metadata?.resourceVersion ?? ""}`).sort(),
        );
      },
      { timeout: 60_000 },
    );
    assert.deepEqual(
      informer.store
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
      ["change", "fresh", "keep", "kube-root-ca.crt", "new"].filter((n) =>
        truth.items.some((i) => i.metadata?.name === n),
      ),
    );
    assert.equal(informer.store.getByName("restart", "change")?.data?.constructor, Object);
    assert.deepEqual(informer.store.getByName("restart", "change")?.data, { v: "2" });

    // Nothing duplicated: each object was added at most once and deleted at most once.
    const adds = events.filter((e) => e.startsWith("add "));
    assert.equal(new Set(adds).size, adds.length, `duplicate adds: ${events.join("\n")}`);
    assert.equal(events.filter((e) => e.startsWith("delete remove ")).length, 1);
    assert.equal(events.filter((e) => e.startsWith("add new ")).length, 1);
    assert.equal(events.filter((e) => e.startsWith("add keep ")).length, 1);
    // blink was either never seen (relist) or seen added and deleted (resumed watch).
    assert.equal(
      events.filter((e) => e.startsWith("add blink ")).length,
      events.filter((e) => e.startsWith("delete blink ")).length,
    );

    // The outage was noticed, logged and counted, and the informer kept going.
    assert.ok(
      reconnects.some((r) => r.reason === "error" || r.reason === "closed"),
      JSON.stringify(reconnects),
    );
    assert.ok(logs.includes("watch failed, reconnecting") || logs.includes("watch reconnecting"));
    assert.equal(informer.stopped, false);
  });
});
