// Recovery (issue #18): with N fan-out instances converged,
//  1. kube-apiserver restarted (2 s down): time from its /readyz to a new instance being Ready;
//  2. the leader controller killed with SIGKILL while a standby waits (leader election, default
//     timings: lease 15 s, renew deadline 10 s, retry 2 s): time from the kill to a new instance
//     being Ready, served by the standby.
// Readiness is polled with GETs (every 50 ms), so no harness watch has to recover first.
// Writes from a deposed leader are measured by test/integration/leader-election.test.ts (a
// black-holed connection, 0 writes after loss), not here.
import { setTimeout as sleep } from "node:timers/promises";
import { log, waitUntil } from "../lib/progress.mjs";
import { isReady, InstanceTracker } from "../lib/tracker.mjs";
import { createInstances, ensureNamespaces, installRgd, spread, waitReady } from "../lib/workload.mjs";
import { FANOUT, fanoutInstance, fanoutRgd } from "../fixtures/fanout-rgd.mjs";
import { startControllerProcess } from "../lib/controller-process.mjs";
import path from "node:path";

const LEASE = { namespace: "default", name: "restart-bench.kro.run" };
const NAMESPACE = "restart-bench";

async function timeToReady(harness, name, timeoutMs) {
  const object = fanoutInstance(name, NAMESPACE);
  const started = Date.now();
  await harness.create(object);
  const ref = { apiVersion: object.apiVersion, kind: object.kind, name, namespace: NAMESPACE };
  await waitUntil(`${name} to be Ready`, async () => (isReady(await harness.get(ref).catch(() => ({}))) ? true : undefined), { timeoutMs, intervalMs: 50 });
  return Date.now() - started;
}

export async function runRestart(bench) {
  const { args, harness, cluster } = bench;
  const instances = args.instances ?? 100;
  const timeoutMs = args.timeout * 1000;
  const electionArgs = ["--leader-elect", "--leader-election-namespace", LEASE.namespace, "--leader-election-id", LEASE.name];
  log(`restart: ${instances} converged fan-out instances; API-server restart, then leader kill -9 with a standby`);
  // Phase 1 without leader election: with it, a leader that cannot renew for its renew deadline
  // (10 s) stops and exits, as client-go's does — an API server that takes longer than that to
  // come back costs a process restart, which is phase 2's measurement, not this one's.
  await installRgd(harness, fanoutRgd());
  await ensureNamespaces(harness, [NAMESPACE]);
  const tracker = await new InstanceTracker(harness, `${FANOUT.group}/${FANOUT.version}`, FANOUT.kind).start();
  const apiServer = [];
  const failover = [];
  let standby;
  try {
    const objects = spread(instances, "base", [NAMESPACE], (name, n) => fanoutInstance(name, n));
    await createInstances(harness, tracker, objects);
    await waitReady(tracker, objects, timeoutMs);
    for (let rep = 0; rep < args.repeat; rep++) {
      log(`restart: kube-apiserver down for 2 s (${rep + 1}/${args.repeat})`);
      await cluster.restartComponent("kube-apiserver", { downtimeMs: 2000 });
      // restartComponent returns once /readyz answers 200: the clock starts there.
      apiServer.push(await timeToReady(harness, `after-restart-${rep}`, timeoutMs));
      log(`restart: new instance Ready ${apiServer.at(-1)} ms after /readyz`);
      await sleep(3000);
    }
    await bench.controller.stop();
    const leader = await bench.startController(electionArgs);
    await waitUntil("the leader to hold the Lease", async () => ((await harness.get({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...LEASE }).catch(() => undefined))?.spec?.holderIdentity ? true : undefined), { timeoutMs, intervalMs: 200 });
    for (let rep = 0; rep < args.repeat; rep++) {
      standby = await startControllerProcess({
        root: bench.root, kubeconfig: cluster.kubeconfigPath, workers: args.workers, qps: args.qps, burst: args.burst,
        logFile: path.join(bench.workDir, `standby-${rep}.log`), extraArgs: electionArgs,
      });
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
  } finally {
    await standby?.stop();
    await tracker.stop();
  }
  return { scenario: "restart", instances, summary: { apiServerRestartToReadyMs: apiServer, killToReadyMs: failover } };
}
