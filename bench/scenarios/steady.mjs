// Steady state (benchmarks.md §3) on N converged fan-out instances: writes while idle, writes per
// no-op reconcile during a cold-start resync (controller subprocess restarted), drift restore
// latency (a child deleted → recreated), deletion latency (instance deleted → gone), idle RSS.
import { attributable, diffTotals, scrapeRequestTotals, writes } from "../lib/apiserver-metrics.mjs";
import { readProc } from "../lib/proc.mjs";
import { log, waitUntil } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";
import { InstanceTracker, objectKey } from "../lib/tracker.mjs";
import { createInstances, ensureNamespaces, installRgd, spread, waitReady } from "../lib/workload.mjs";
import { FANOUT, FANOUT_CHILD_RESOURCES, fanoutInstance, fanoutRgd } from "../fixtures/fanout-rgd.mjs";

const NAMESPACES = 10;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSteady(bench) {
  const { args, harness, cluster } = bench;
  const instances = args.instances ?? 1000;
  const timeoutMs = args.timeout * 1000;
  const IDLE_WINDOW_MS = args.idleSeconds * 1000;
  // Time for trailing events (status updates, child watch events) to drain before counting.
  const SETTLE_MS = Math.min(5_000, 500 + instances * 5);
  const scope = { resources: FANOUT_CHILD_RESOURCES, instanceResource: FANOUT.plural };
  log(`steady: converging ${instances} fan-out instances`);
  await installRgd(harness, fanoutRgd());
  const tracker = await new InstanceTracker(harness, `${FANOUT.group}/${FANOUT.version}`, FANOUT.kind).start();
  const addedAt = new Map();
  const children = harness.informer({ apiVersion: "v1", kind: "ConfigMap", labelSelector: "bench.kro.run/instance" });
  children.addHandlers({
    onAdd: (o) => {
      addedAt.set(objectKey(o), { at: Date.now(), uid: o.metadata.uid });
    },
  });
  children.start();
  await children.waitForSync({ timeoutMs: 60_000 });
  try {
    const ns = Array.from({ length: NAMESPACES }, (_, i) => `steady-${i}`);
    await ensureNamespaces(harness, ns);
    const objects = spread(instances, "inst", ns, (name, n) => fanoutInstance(name, n));
    await createInstances(harness, tracker, objects);
    await waitReady(tracker, objects, timeoutMs, "instances to be Ready");
    await sleep(SETTLE_MS);

    const idle = [];
    const resync = [];
    for (let rep = 0; rep < args.repeat; rep++) {
      // Idle: nothing changes, nothing may be written.
      log(`steady r${rep}: idle for ${IDLE_WINDOW_MS / 1000} s`);
      const t0 = await scrapeRequestTotals(cluster);
      await sleep(IDLE_WINDOW_MS);
      const idleWrites = writes(attributable(diffTotals(t0, await scrapeRequestTotals(cluster)), scope));
      const proc = readProc(bench.controller.pid);
      idle.push({ writesPerMinute: round(idleWrites * (60_000 / IDLE_WINDOW_MS), 2), rssMb: round(proc.rssMb, 1) });

      // Cold start: a new controller process resyncs every instance; each reconcile is a no-op.
      log(`steady r${rep}: restarting the controller (cold-start resync of ${instances} instances)`);
      await bench.controller.stop();
      const t1 = await scrapeRequestTotals(cluster);
      const controller = await bench.startController();
      await waitUntil(
        "the resync to reconcile every instance",
        async () => ((await controller.reconciles()).instance >= instances ? true : undefined),
        {
          timeoutMs,
          intervalMs: 50,
          describe: () => "scraping kro_reconcile_total",
        },
      );
      const coldStartMs = Date.now() - controller.spawnedAt;
      await sleep(SETTLE_MS);
      const reconciles = (await controller.reconciles()).instance;
      const delta = diffTotals(t1, await scrapeRequestTotals(cluster));
      const resyncWrites = writes(attributable(delta, scope));
      resync.push({
        coldStartMs,
        readyAfterMs: controller.readyAfterMs,
        reconciles,
        writes: resyncWrites,
        writesPerNoopReconcile: round(resyncWrites / reconciles, 4),
        requests: delta,
      });
      log(`steady r${rep}: resynced in ${coldStartMs} ms with ${resyncWrites} writes for ${reconciles} reconciles`);
    }

    // Drift: delete one child ConfigMap at a time; time until a new one (new UID) is seen.
    const drift = [];
    for (let i = 0; i < Math.min(args.drifts, instances); i++) {
      const o = objects[(i * 37) % objects.length];
      const ref = {
        apiVersion: "v1",
        kind: "ConfigMap",
        namespace: o.metadata.namespace,
        name: `${o.metadata.name}-config`,
      };
      const key = `${ref.namespace}/${ref.name}`;
      const oldUid = children.store.getByName(ref.namespace, ref.name)?.metadata?.uid;
      const t = Date.now();
      await harness.delete(ref);
      const restoredAt = await waitUntil(
        `ConfigMap ${key} to be restored`,
        () => {
          const seen = addedAt.get(key);
          return seen !== undefined && seen.uid !== oldUid && seen.at >= t ? seen.at : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 5 },
      );
      drift.push(restoredAt - t);
    }
    log(`steady: drift restore median ${summarize(drift).median} ms over ${drift.length}`);

    // Deletion: one instance at a time; time until the instance is gone (finalizer removed).
    const deletion = [];
    for (let i = 0; i < Math.min(args.deletions, instances); i++) {
      const o = objects[objects.length - 1 - i];
      const t = Date.now();
      await harness.delete({
        apiVersion: o.apiVersion,
        kind: o.kind,
        namespace: o.metadata.namespace,
        name: o.metadata.name,
      });
      const goneAt = await waitUntil(`instance ${objectKey(o)} to be deleted`, () => tracker.goneAt.get(objectKey(o)), {
        timeoutMs: 60_000,
        intervalMs: 5,
      });
      deletion.push(goneAt - t);
    }
    log(`steady: deletion median ${summarize(deletion).median} ms over ${deletion.length}`);

    return {
      scenario: "steady",
      instances,
      idleWindowMs: IDLE_WINDOW_MS,
      summary: {
        writesPerNoopReconcile: summarize(resync.map((r) => r.writesPerNoopReconcile)),
        idleWritesPerMinute: summarize(idle.map((r) => r.writesPerMinute)),
        coldStartMs: summarize(resync.map((r) => r.coldStartMs)),
        idleRssMb: summarize(idle.map((r) => r.rssMb)),
      },
      drift: { ...summarize(drift), samplesMs: drift },
      deletion: { ...summarize(deletion), samplesMs: deletion },
      idle,
      resync,
    };
  } finally {
    await Promise.all([tracker.stop(), children.stop()]);
  }
}
