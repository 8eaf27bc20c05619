// `npm run bench -- --scenario fanout --replicas 1,2,4`: the fan-out workload converged by 1, 2,
// 4 … replicas sharing the instances through shard Leases (--shards 16), each replica with the
// same client QPS/burst — so when the per-client QPS is the bound, more replicas converge faster.
// The replicas run in this process (each its own clients, rate limiter, queue and workers, like
// separate processes would; they share this process's CPU). Every write each replica sends is
// recorded with its interval, and per instance the writes of two replicas that overlap in time
// are counted: "concurrent writers", which must be 0. Each round has its own RGD and kind, so a
// round never reconciles the previous round's instances.
//
// `--replica-processes`: each replica is its own `kro controller --shards 16` process instead (as
// deployed: the image's node flags), so each one's RSS is its own — memory per replica, total
// across N against one replica's in the same run, and the objects each caches (its
// kro_informer_cached_objects gauge). Writes per replica are then not recorded (no client hook).
import path from "node:path";
import { get } from "node:http";
import { mkdir, writeFile } from "node:fs/promises";
import { log, pool, waitUntil } from "../lib/progress.mjs";
import { InstanceTracker } from "../lib/tracker.mjs";
import { createInstances, ensureNamespaces, installRgd, spread, waitReady } from "../lib/workload.mjs";
import { FANOUT, fanoutInstance, fanoutRgd } from "../fixtures/fanout-rgd.mjs";
import { startControllerProcess } from "../lib/controller-process.mjs";
import { readProc } from "../lib/proc.mjs";

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
    const client = await createKubeClient({
      kubeconfig,
      qps: args.qps,
      burst: args.burst,
      metrics: {
        onRequest: (m) => {
          requests.push({ ...m, endedAt: performance.now() });
        },
      },
    });
    const eventClient = await createKubeClient({ kubeconfig, qps: 20, burst: 50 });
    const leaseClient = await createKubeClient({
      kubeconfig,
      qps: 50,
      burst: 100,
      maxRetries: 0,
      requestTimeoutMs: timing.renewDeadlineMs,
    });
    const leader = startRgdLeadership({
      client: leaseClient,
      logger,
      namespace,
      name: `bench-${round}`,
      identity: id,
      ...timing,
    });
    const shards = startShardCoordinator({
      api: leaseApiOf(leaseClient),
      logger,
      namespace,
      group: `bench-${round}-instances`,
      identity: id,
      shardCount: SHARDS,
      timing,
    });
    shards.start();
    const controller = startController({
      client,
      eventClient,
      logger,
      kroVersion: "bench",
      workers: args.workers,
      rgdSelector: `bench.kro.run/round=${round}`,
      requeueIntervalMs: 3000,
      sharding: { shards, leader },
    });
    await controller.ready;
    replicas.push({
      id,
      requests,
      shards,
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

const seconds = (ms) => `${ms / 1000}s`;

function metricsText(url) {
  return new Promise((resolve, reject) => {
    const req = get(url, { timeout: 5000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve(body));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error(`timeout: ${url}`)));
  });
}

/** Replicas as processes; `held()` reads the shard Leases (the processes' coordinators are out of reach). */
async function startReplicaProcesses(root, kubeconfig, args, count, round, workDir, harness) {
  const replicas = [];
  for (let i = 0; i < count; i++) {
    const id = `${round}-replica-${i}`;
    const p = await startControllerProcess({
      root,
      kubeconfig,
      workers: args.workers,
      qps: args.qps,
      burst: args.burst,
      logFile: path.join(workDir, `${id}.log`),
      extraArgs: [
        "--shards",
        String(SHARDS),
        "--replica-id",
        id,
        "--rgd-selector",
        `bench.kro.run/round=${round}`,
        "--leader-election-namespace",
        "default",
        "--leader-election-id",
        `bench-${round}`,
        "--leader-elect-lease-duration",
        seconds(timing.leaseDurationMs),
        "--leader-elect-renew-deadline",
        seconds(timing.renewDeadlineMs),
        "--leader-elect-retry-period",
        seconds(timing.retryPeriodMs),
      ],
    });
    replicas.push({
      id,
      requests: [],
      process: p,
      /** Objects in its informer caches, per kind (its own gauge). */
      async cached() {
        const body = await metricsText(p.metricsUrl);
        const byKind = {};
        for (const m of body.matchAll(/^kro_informer_cached_objects\{([^}]*)\} (\S+)$/gm))
          byKind[/kind="([^"]*)"/.exec(m[1])?.[1] ?? ""] = Number(m[2]);
        return byKind;
      },
      stop: () => p.stop(),
    });
  }
  // Shards held per replica, from the Leases (what the coordinators hold is not visible from here).
  const leases = async () =>
    (
      await harness.list("coordination.k8s.io/v1", "Lease", {
        namespace: "default",
        labelSelector: `kro.run/shard-group=bench-${round}-instances,kro.run/shard-role=shard`,
      })
    ).items;
  for (const r of replicas) r.shards = { held: () => r.heldCount ?? [] };
  return {
    replicas,
    async refreshHeld() {
      const items = await leases();
      for (const r of replicas)
        r.heldCount = items.filter((l) => l.spec?.holderIdentity === r.id).map((l) => l.metadata.name);
    },
  };
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
    log(
      `replicas ${count}: starting ${count} ${args.replicaProcesses ? "controller process(es)" : "in-process controller(s)"}, QPS ${args.qps}/burst ${args.burst} each, ${SHARDS} shards`,
    );
    const group = args.replicaProcesses
      ? await startReplicaProcesses(root, cluster.kubeconfigPath, args, count, round, bench.workDir, harness)
      : undefined;
    const replicas = group?.replicas ?? (await startReplicas(root, cluster.kubeconfigPath, args, count, round));
    const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `replicas-${round}-${i}`);
    try {
      await installRgd(harness, rgd);
      await waitUntil(
        "fair shares of the shards",
        async () => {
          await group?.refreshHeld();
          const held = replicas.map((r) => r.shards.held().length);
          return held.reduce((a, b) => a + b, 0) === SHARDS && Math.max(...held) - Math.min(...held) <= 1
            ? true
            : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 200 },
      );
      // Before any instance: what each process costs with nothing to cache (the per-replica constant).
      const idle = group === undefined ? undefined : await settledRss(replicas);
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
      const memory = group === undefined ? undefined : { idleRssMb: idle, ...(await settledMemory(replicas, kind)) };
      results.push({
        replicas: count,
        instances,
        convergedMs,
        writesPerReplica: writes,
        concurrentWriters: overlaps,
        ...(memory === undefined ? {} : { memory }),
      });
      log(
        `replicas ${count}: ${instances} instances Ready in ${(convergedMs / 1000).toFixed(1)} s; ${memory === undefined ? `writes per replica ${writes.join(", ")}; concurrent writers ${overlaps}` : `RSS per replica ${memory.rssMb.join(" / ")} MB (total ${memory.totalRssMb}; idle before the instances ${memory.idleRssMb.join(" / ")}); cached instances ${memory.cachedInstances.join(" / ")}, children ${memory.cachedChildren.join(" / ")}`}`,
      );
    } finally {
      for (const r of replicas) await r.stop();
      // Child informers select kro's children cluster-wide (by label, not by RGD): the next round's
      // replicas would cache this round's children too. Its instances stay (a kind nobody serves next).
      if (args.replicaProcesses) await removeChildren(harness, kind, namespaces);
    }
  }
  const base = results.find((r) => r.replicas === 1)?.convergedMs;
  const baseRss = results.find((r) => r.replicas === 1)?.memory?.totalRssMb;
  if (args.replicaProcesses) {
    // "Growth": converged minus idle (before any instance), summed — what the instances cost.
    const growth = (m) => Math.round((m.totalRssMb - m.idleRssMb.reduce((a, b) => a + b, 0)) * 10) / 10;
    const baseGrowth = results.find((r) => r.replicas === 1)?.memory;
    console.log(
      "\nreplicas  instances  converged (s)  speed-up  RSS per replica (MB)       total RSS  ÷ one replica  growth (MB)  ÷ one  cached instances / children per replica",
    );
    for (const r of results) {
      const m = r.memory;
      console.log(
        `${String(r.replicas).padEnd(9)} ${String(r.instances).padEnd(10)} ${(r.convergedMs / 1000).toFixed(1).padEnd(14)} ${base === undefined ? "-".padEnd(9) : (base / r.convergedMs).toFixed(2).padEnd(9)} ${m.rssMb.join(" / ").padEnd(26)} ${String(m.totalRssMb).padEnd(10)} ${baseRss === undefined ? "-".padEnd(14) : (m.totalRssMb / baseRss).toFixed(2).padEnd(14)} ${String(growth(m)).padEnd(12)} ${baseGrowth === undefined ? "-".padEnd(6) : (growth(m) / growth(baseGrowth)).toFixed(2).padEnd(6)} ${m.cachedInstances.join("/")} / ${m.cachedChildren.join("/")}`,
      );
    }
  } else console.log("\nreplicas  instances  converged (s)  speed-up  writes per replica        concurrent writers");
  for (const r of args.replicaProcesses ? [] : results) {
    console.log(
      `${String(r.replicas).padEnd(9)} ${String(r.instances).padEnd(10)} ${(r.convergedMs / 1000).toFixed(1).padEnd(14)} ${base === undefined ? "-" : (base / r.convergedMs).toFixed(2).padEnd(9)} ${r.writesPerReplica.join("/").padEnd(25)} ${r.concurrentWriters}`,
    );
  }
  const dir = path.resolve(root, args.out);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `replicas-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(
    file,
    JSON.stringify(
      {
        scenario: args.replicaProcesses ? "fanout-replica-processes" : "fanout-replicas",
        qps: args.qps,
        burst: args.burst,
        workers: args.workers,
        shards: SHARDS,
        results,
      },
      null,
      2,
    ),
  );
  log(`replicas: raw results in ${path.relative(process.cwd(), file)}`);
  return results;
}

/**
 * RSS of each replica process once converged: a few seconds to settle, then the median of 5
 * samples a second apart (a sample can land mid-GC). Cached objects from each one's own gauge.
 */
async function settledRss(replicas) {
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const samples = replicas.map(() => []);
  for (let s = 0; s < 5; s++) {
    replicas.forEach((r, i) => {
      samples[i].push(readProc(r.process.pid).rssMb);
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return samples.map((xs) => Math.round(median(xs) * 10) / 10);
}

async function settledMemory(replicas, kind) {
  const rssMb = await settledRss(replicas);
  const cached = await Promise.all(replicas.map((r) => r.cached()));
  const children = (c) =>
    Object.entries(c)
      .filter(([k]) => ["ConfigMap", "Secret", "Deployment", "Service", "NetworkPolicy"].includes(k))
      .reduce((a, [, v]) => a + v, 0);
  return {
    rssMb,
    totalRssMb: Math.round(rssMb.reduce((a, b) => a + b, 0) * 10) / 10,
    cachedInstances: cached.map((c) => c[kind] ?? 0),
    cachedChildren: cached.map(children),
  };
}

const CHILD_KINDS = [
  ["v1", "ConfigMap"],
  ["v1", "Secret"],
  ["apps/v1", "Deployment"],
  ["v1", "Service"],
  ["networking.k8s.io/v1", "NetworkPolicy"],
];

/** Deletes the children of a round's instances (the harness client: no rate limit). */
async function removeChildren(client, kind, namespaces) {
  const targets = [];
  for (const [apiVersion, childKind] of CHILD_KINDS) {
    for (const namespace of namespaces) {
      const { items } = await client.list(apiVersion, childKind, {
        namespace,
        labelSelector: `kro.run/instance-kind=${kind}`,
        metadataOnly: true,
      });
      for (const o of items) targets.push({ apiVersion, kind: childKind, namespace, name: o.metadata.name });
    }
  }
  await pool(targets, 16, (ref) => client.delete(ref).catch(() => undefined));
  log(`removed ${targets.length} children of ${kind}`);
}
