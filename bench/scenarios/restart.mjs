// Recovery: with N fan-out instances converged,
//  1. kube-apiserver restarted (--downtime-seconds down), idle and busy: time from its /readyz to
//     a new instance being Ready, beside a quiet run (apiserver-restart.mjs);
//  2. the leader controller killed with SIGKILL while a warm standby waits (leader election,
//     default timings: lease 15 s, renew deadline 10 s, retry 2 s): time from the kill to a new
//     instance being Ready, served by the standby;
//  3. split brain: the leader, busy with new instances, paused (SIGSTOP) until the standby holds
//     the Lease, then resumed (SIGCONT): writes the old leader sent after the takeover, counted
//     from kube-apiserver's audit log (replicas told apart by their User-Agent), target 0.
// Readiness is polled with GETs (every 50 ms), so no harness watch has to recover first.
import { setTimeout as sleep } from "node:timers/promises";
import { log, waitUntil } from "../lib/progress.mjs";
import { isReady, InstanceTracker } from "../lib/tracker.mjs";
import { createInstances, ensureNamespaces, installRgd, spread, waitReady } from "../lib/workload.mjs";
import { FANOUT, fanoutInstance, fanoutRgd } from "../fixtures/fanout-rgd.mjs";
import { API_NAMESPACE, measureApiServerRestarts, timeToReady as readyAfterCreate } from "./apiserver-restart.mjs";
import { startControllerProcess } from "../lib/controller-process.mjs";
import { auditTime, leaseTakeover, readAuditLog, writesBy } from "../lib/audit-log.mjs";
import path from "node:path";
import { summarize as stats } from "../lib/stats.mjs";

const LEASE = { namespace: "default", name: "restart-bench.kro.run" };
const NAMESPACE = API_NAMESPACE;

const timeToReady = (harness, name, timeoutMs) => readyAfterCreate(harness, name, timeoutMs, NAMESPACE);

const LEASE_API = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...LEASE };
const holder = async (harness) => (await harness.get(LEASE_API).catch(() => undefined))?.spec?.holderIdentity ?? "";

/** A standby whose caches are warm: it has followed the RGD (served its graph, started its informers). */
async function startWarmStandby(bench, electionArgs, identity, timeoutMs) {
  const { args, cluster } = bench;
  const standby = await startControllerProcess({
    root: bench.root,
    kubeconfig: cluster.kubeconfigPath,
    workers: args.workers,
    qps: args.qps,
    burst: args.burst,
    logFile: path.join(bench.workDir, `${identity}.log`),
    extraArgs: [...electionArgs, "--replica-id", identity],
  });
  await waitUntil(
    `${identity} to follow the RGD`,
    async () => (((await standby.reconciles()).ResourceGraphDefinition ?? 0) > 0 ? true : undefined),
    { timeoutMs, intervalMs: 200 },
  );
  return Object.assign(standby, { identity });
}

export async function runRestart(bench) {
  const { args, harness } = bench;
  const instances = args.instances ?? 100;
  const timeoutMs = args.timeout * 1000;
  const electionArgs = [
    "--leader-elect",
    "--leader-election-namespace",
    LEASE.namespace,
    "--leader-election-id",
    LEASE.name,
  ];
  log(`restart: ${instances} converged fan-out instances; API-server restart, then leader kill -9 with a standby`);
  // Phase 1 without leader election: with it, a leader that cannot renew for its renew deadline
  // (10 s) stops and exits, as client-go's does — an API server that takes longer than that to
  // come back costs a process restart, which is phase 2's measurement, not this one's.
  await installRgd(harness, fanoutRgd());
  await ensureNamespaces(harness, [NAMESPACE]);
  const tracker = await new InstanceTracker(harness, `${FANOUT.group}/${FANOUT.version}`, FANOUT.kind).start();
  const phases = new Set(args.phases.split(","));
  let apiServer;
  const failover = [];
  const splitBrain = [];
  let standby;
  try {
    const objects = spread(instances, "base", [NAMESPACE], (name, n) => fanoutInstance(name, n));
    await createInstances(harness, tracker, objects);
    await waitReady(tracker, objects, timeoutMs);
    if (phases.has("api")) {
      apiServer = await measureApiServerRestarts(bench, {
        repeat: args.repeat,
        downtimeMs: args.downtimeSeconds * 1000,
        busyInstances: args.busy,
        timeoutMs,
      });
    }
    if (!phases.has("failover") && !phases.has("split")) return summarize();
    await bench.controller.stop();
    const leader = Object.assign(await bench.startController([...electionArgs, "--replica-id", "leader-0"]), {
      identity: "leader-0",
    });
    await waitUntil(
      "the leader to hold the Lease",
      async () => ((await holder(harness)) === leader.identity ? true : undefined),
      { timeoutMs, intervalMs: 200 },
    );
    for (let rep = 0; phases.has("failover") && rep < args.repeat; rep++) {
      standby = await startWarmStandby(bench, electionArgs, `standby-${rep}`, timeoutMs);
      await sleep(3000); // the standby has seen the Lease held
      const current = rep === 0 ? leader : bench.controller;
      log(`restart: kill -9 the leader (pid ${current.pid}) (${rep + 1}/${args.repeat})`);
      const killedAt = Date.now();
      await current.kill();
      await timeToReady(harness, `after-kill-${rep}`, timeoutMs);
      failover.push(Date.now() - killedAt); // from the kill (the instance is created right after it)
      log(`restart: new instance Ready ${failover.at(-1)} ms after the kill`);
      bench.controller = standby;
      standby = undefined;
    }
    for (let rep = 0; phases.has("split") && rep < args.repeat; rep++) {
      standby = await startWarmStandby(bench, electionArgs, `pause-standby-${rep}`, timeoutMs);
      await sleep(3000);
      splitBrain.push(await pausedLeader(bench, standby, `paused-${rep}`, timeoutMs));
      log(`restart: paused leader: ${JSON.stringify(splitBrain.at(-1))}`);
      bench.controller = standby;
      standby = undefined;
    }
  } finally {
    await standby?.stop();
    await tracker.stop();
  }
  return summarize();

  function summarize() {
    return {
      scenario: "restart",
      instances,
      summary: {
        apiServerRestart:
          apiServer === undefined
            ? undefined
            : {
                ...apiServer,
                quiet: stats(apiServer.quietMs),
                idle: stats(apiServer.idleMs),
                busyQuiet: stats(apiServer.busyQuietMs),
                busy: stats(apiServer.busyMs),
              },
        killToReadyMs: failover,
        pauseTakeoverMs: splitBrain.map((r) => r.takeoverMs),
        writesAfterTakeover: splitBrain.map((r) => r.writesAfterTakeover),
      },
      splitBrain,
    };
  }
}

/**
 * Pauses the leader while it has work in flight (new instances just created), until `standby`
 * holds the Lease and has worked a little; resumes it and waits for it to exit (a leader that lost
 * its Lease exits). Then counts, from the audit log, the old leader's writes the API server
 * received after the standby's acquiring Lease update.
 */
async function pausedLeader(bench, standby, prefix, timeoutMs) {
  const { harness, cluster } = bench;
  const old = bench.controller;
  const objects = spread(10, prefix, [NAMESPACE], (name, n) => fanoutInstance(name, n));
  const pausedSince = auditTime(new Date());
  await Promise.all(objects.map((o) => harness.create(o)));
  await sleep(300); // its reconciles are under way: writes in flight and queued
  log(`restart: SIGSTOP the leader ${old.identity} (pid ${old.pid}) with ${objects.length} new instances in progress`);
  old.pause();
  const pausedAt = Date.now();
  await waitUntil(
    `${standby.identity} to hold the Lease`,
    async () => ((await holder(harness)) === standby.identity ? true : undefined),
    { timeoutMs, intervalMs: 100 },
  );
  const takeoverMs = Date.now() - pausedAt;
  await sleep(2000); // the new leader works on the same instances meanwhile
  log(`restart: SIGCONT the old leader ${old.identity}`);
  old.resume();
  const exit = await Promise.race([old.exited, sleep(30_000).then(() => "still running after 30 s")]);
  await old.stop();
  for (const o of objects) {
    const ref = { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace };
    await waitUntil(
      `${o.metadata.name} to be Ready`,
      async () => (isReady(await harness.get(ref).catch(() => ({}))) ? true : undefined),
      { timeoutMs, intervalMs: 100 },
    );
  }
  await sleep(1000); // the audit log is written as requests complete
  const events = await readAuditLog(cluster.auditLogPath);
  const takeover = leaseTakeover(events, LEASE, standby.identity, pausedSince);
  if (takeover === undefined) throw new Error(`no Lease update by ${standby.identity} in the audit log`);
  const late = writesBy(events, old.identity, takeover.requestReceivedTimestamp);
  return {
    takeoverMs,
    oldLeaderExit: exit,
    writesBeforeTakeover: writesBy(events, old.identity, pausedSince).length - late.length,
    writesAfterTakeover: late.length,
    lateWrites: late
      .slice(0, 10)
      .map((e) => `${e.verb} ${e.requestURI} ${e.responseStatus?.code} at ${e.requestReceivedTimestamp}`),
  };
}
