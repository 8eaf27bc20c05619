// `npm run bench -- --scenario fanout --replicas 1,2,4`: the fan-out workload converged by 1, 2,
// 4 … replicas sharing the instances through shard Leases (--shards 16), each replica with the
// same client QPS/burst — so when the per-client QPS is the bound, more replicas converge faster.
// The replicas run in this process (each its own clients, rate limiter, queue and workers, like
// separate processes would; they share this process's CPU). Every write each replica sends is
// recorded with its interval, and per instance the writes of two replicas that overlap in time
// are counted: "concurrent writers", which must be 0. Each round has its own RGD and kind, so a
// round never reconciles the previous round's instances.
import path from "node:path";
import { mkdir, writeFile } from "node:fs/promises";
import { log, waitUntil } from "../lib/progress.mjs";
import { InstanceTracker } from "../lib/tracker.mjs";
import { createInstances, ensureNamespaces, installRgd, spread, waitReady } from "../lib/workload.mjs";
import { FANOUT, fanoutInstance, fanoutRgd } from "../fixtures/fanout-rgd.mjs";

const SHARDS = 16;
const NAMESPACES = 10;
const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const CHILD_SUFFIX = /-(config|secret|app|svc|netpol|endpoint)$/;

async function startReplicas(root, kubeconfig, args, count, round) {
  const dist = (p) => import(path.join(root, "dist/src", p));
  const { createKubeClient } = await dist("kube/index.js");
  const { leaseApiOf, startController, startRgdLeadership, startShardCoordinator } = await dist("controller/index.js");
  const { createLogger } = await dist("observability/index.js");
  const logger = createLogger({ level: "silent", name: "bench-replica", format: "text" });
  const namespace = "default";
  const replicas = [];
  for (let i = 0; i < count; i++) {
    const id = `${round}-replica-${i}`;
    const requests = [];
    const client = await createKubeClient({ kubeconfig, qps: args.qps, burst: args.burst, metrics: { onRequest: (m) => { requests.push({ ...m, endedAt: performance.now() }); } } });
    const eventClient = await createKubeClient({ kubeconfig, qps: 20, burst: 50 });
    const leaseClient = await createKubeClient({ kubeconfig, qps: 50, burst: 100, maxRetries: 0, requestTimeoutMs: timing.renewDeadlineMs });
    const leader = startRgdLeadership({ client: leaseClient, logger, namespace, name: `bench-${round}`, identity: id, ...timing });
    const shards = startShardCoordinator({ api: leaseApiOf(leaseClient), logger, namespace, group: `bench-${round}-instances`, identity: id, shardCount: SHARDS, timing });
    shards.start();
    const controller = startController({
      client, eventClient, logger, kroVersion: "bench", workers: args.workers, rgdSelector: `bench.kro.run/round=${round}`,
      requeueIntervalMs: 3000, sharding: { shards, leader },
    });
    await controller.ready;
    replicas.push({
      id, requests, shards,
      async stop() {
        await controller.stop();
        await shards.stop();
        await leader.stop();
        for (const c of [client, eventClient, leaseClient]) c.close();
      },
    });
  }
  return replicas;
}

/** Per instance, pairs of writes from two replicas whose request intervals overlap. */
function concurrentWriters(replicas, namespaces) {
  const byInstance = new Map();
  for (const r of replicas) {
    for (const w of r.requests) {
      if (!WRITES.has(w.verb)) continue;
      const m = /\/namespaces\/([^/]+)\/([^/]+)\/([^/]+)/.exec(w.path);
      if (m === null || !namespaces.includes(m[1]) || m[2] === "events") continue;
      const key = `${m[1]}/${m[3].replace(CHILD_SUFFIX, "")}`;
      const list = byInstance.get(key) ?? [];
      list.push({ replica: r.id, start: w.endedAt - w.durationMs, end: w.endedAt });
      byInstance.set(key, list);
    }
  }
  let overlaps = 0;
  for (const list of byInstance.values()) {
    list.sort((a, b) => a.start - b.start);
    let reach;
    for (const w of list) {
      if (reach !== undefined && reach.replica !== w.replica && w.start < reach.end) overlaps++;
      if (reach === undefined || w.end > reach.end) reach = w;
    }
  }
  return { overlaps, instancesWritten: byInstance.size };
}

export async function runReplicas(bench) {
  const { args, harness, cluster, root } = bench;
  const instances = args.instances ?? 300;
  const results = [];
  for (const count of args.replicas) {
    const round = `r${count}`;
    const kind = `${FANOUT.kind}R${count}`;
    const rgd = fanoutRgd();
    rgd.metadata = { name: `${FANOUT.rgdName}-${round}`, labels: { "bench.kro.run/round": round } };
    rgd.spec.schema.kind = kind;
    log(`replicas ${count}: starting ${count} in-process controller(s), QPS ${args.qps}/burst ${args.burst} each, ${SHARDS} shards`);
    const replicas = await startReplicas(root, cluster.kubeconfigPath, args, count, round);
    try {
      await installRgd(harness, rgd);
      await waitUntil("fair shares of the shards", () => {
        const held = replicas.map((r) => r.shards.held().length);
        return held.reduce((a, b) => a + b, 0) === SHARDS && Math.max(...held) - Math.min(...held) <= 1 ? true : undefined;
      }, { timeoutMs: 120_000, intervalMs: 200 });
      const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `replicas-${round}-${i}`);
      await ensureNamespaces(harness, namespaces);
      const tracker = await new InstanceTracker(harness, `${FANOUT.group}/${FANOUT.version}`, kind).start();
      const objects = spread(instances, "inst", namespaces, (name, ns) => ({ ...fanoutInstance(name, ns), kind }));
      const started = Date.now();
      await createInstances(harness, tracker, objects);
      await waitReady(tracker, objects, args.timeout * 1000);
      const convergedMs = Date.now() - started;
      tracker.informer.stop();
      const writes = replicas.map((r) => r.requests.filter((q) => WRITES.has(q.verb)).length);
      const { overlaps } = concurrentWriters(replicas, namespaces);
      results.push({ replicas: count, instances, convergedMs, writesPerReplica: writes, concurrentWriters: overlaps });
      log(`replicas ${count}: ${instances} instances Ready in ${(convergedMs / 1000).toFixed(1)} s; writes per replica ${writes.join(", ")}; concurrent writers ${overlaps}`);
    } finally {
      for (const r of replicas) await r.stop();
    }
  }
  const base = results.find((r) => r.replicas === 1)?.convergedMs;
  console.log("\nreplicas  instances  converged (s)  speed-up  writes per replica        concurrent writers");
  for (const r of results) {
    console.log(`${String(r.replicas).padEnd(9)} ${String(r.instances).padEnd(10)} ${(r.convergedMs / 1000).toFixed(1).padEnd(14)} ${base === undefined ? "-" : (base / r.convergedMs).toFixed(2).padEnd(9)} ${r.writesPerReplica.join("/").padEnd(25)} ${r.concurrentWriters}`);
  }
  const dir = path.resolve(root, args.out);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `replicas-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(file, JSON.stringify({ scenario: "fanout-replicas", qps: args.qps, burst: args.burst, workers: args.workers, shards: SHARDS, results }, null, 2));
  log(`replicas: raw results in ${path.relative(process.cwd(), file)}`);
  return results;
}
