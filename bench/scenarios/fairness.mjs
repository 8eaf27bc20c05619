// Fairness between tenants (docs/design/controller.md, "Fair shares of the workers"): the time
// until N cheap fan-out instances of one namespace are all Ready, alone (quiet) and right after
// H expensive instances of another namespace were created (busy), in the same run — the ratio
// busy/quiet is what one tenant's load costs another. Also the expensive tenant's own time to
// Ready (it is throttled, never failed) and the controller's per-namespace queue wait. A kubelet's
// liveness probe (/healthz every 250 ms, 1 s timeout) runs through the busy phase. Then, with
// every instance still there, the controller is killed (-9) and started again, and N new cheap
// instances are created the moment it is ready: their first and last Ready after the restart say
// whether the expensive tenant's resync holds everyone else back.
import { startHealthProbe } from "../lib/health-probe.mjs";
import { log } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";
import { InstanceTracker } from "../lib/tracker.mjs";
import {
  createInstances,
  deleteInstances,
  ensureNamespaces,
  installRgd,
  waitGone,
  waitReady,
} from "../lib/workload.mjs";
import { FANOUT, fanoutInstance, fanoutRgd } from "../fixtures/fanout-rgd.mjs";
import { HEAVY, heavyInstance, heavyRgd } from "../fixtures/heavy-rgd.mjs";

const BENIGN = 20;
const SIZE = 350;

function benignSet(namespace, prefix) {
  return Array.from({ length: BENIGN }, (_, i) => fanoutInstance(`${prefix}-${i}`, namespace));
}

export async function runFairness(bench) {
  const { args, harness } = bench;
  const hostileCount = args.instances ?? 20;
  const timeoutMs = args.timeout * 1000;
  log(`fairness: ${BENIGN} fan-out instances alone, then beside ${hostileCount} expensive ones (size ${SIZE})`);
  await installRgd(harness, fanoutRgd());
  await installRgd(harness, heavyRgd());
  const benign = await new InstanceTracker(harness, `${FANOUT.group}/${FANOUT.version}`, FANOUT.kind).start();
  const hostile = await new InstanceTracker(harness, `${HEAVY.group}/${HEAVY.version}`, HEAVY.kind).start();
  try {
    const repetitions = [];
    for (let rep = 0; rep < args.repeat; rep++) {
      const ns = { quiet: `fair-quiet-${rep}`, busy: `fair-busy-${rep}`, hostile: `fair-hostile-${rep}` };
      await ensureNamespaces(harness, Object.values(ns));
      const quietSet = benignSet(ns.quiet, "q");
      let started = Date.now();
      await createInstances(harness, benign, quietSet);
      await waitReady(benign, quietSet, timeoutMs, "the quiet tenant's instances to be Ready");
      const quietMs = Date.now() - started;

      const hostileSet = Array.from({ length: hostileCount }, (_, i) => heavyInstance(`h-${i}`, ns.hostile, SIZE));
      const busySet = benignSet(ns.busy, "b");
      started = Date.now();
      const busyProbe = startHealthProbe(bench.controller.healthUrl);
      await createInstances(harness, hostile, hostileSet);
      const benignStarted = Date.now();
      await createInstances(harness, benign, busySet);
      await waitReady(benign, busySet, timeoutMs, "the cheap tenant's instances to be Ready beside the expensive one");
      const busyMs = Date.now() - benignStarted;
      await waitReady(hostile, hostileSet, timeoutMs, "the expensive tenant's instances to be Ready");
      const hostileMs = Date.now() - started;
      const busyHealth = await busyProbe.stop();

      // Restart with every instance present: kill -9, start again, new cheap instances at once.
      log(`fairness r${rep}: kill -9 and restart with ${hostileCount} expensive instances present`);
      await bench.controller.kill();
      await bench.startController();
      const restartProbe = startHealthProbe(bench.controller.healthUrl);
      const restartNs = `fair-restart-${rep}`;
      await ensureNamespaces(harness, [restartNs]);
      const restartSet = benignSet(restartNs, "r");
      const restartedAt = Date.now();
      await createInstances(harness, benign, restartSet);
      const restartKeys = await waitReady(benign, restartSet, timeoutMs, "new cheap instances after the restart");
      const readyTimes = restartKeys.map((k) => benign.readyAt.get(k) - restartedAt);
      const restartHealth = await restartProbe.stop();
      const repetition = {
        quietMs,
        busyMs,
        ratio: round(busyMs / Math.max(quietMs, 1), 2),
        hostileMs,
        hostilePerSecond: round(hostileCount / (hostileMs / 1000), 2),
        busyHealth,
        restartFirstReadyMs: Math.min(...readyTimes),
        restartAllReadyMs: Math.max(...readyTimes),
        restartRatio: round(Math.max(...readyTimes) / Math.max(quietMs, 1), 2),
        restartHealth,
      };
      log(`fairness r${rep}: ${JSON.stringify(repetition)}`);
      repetitions.push(repetition);
      await deleteInstances(harness, [...quietSet, ...busySet, ...restartSet, ...hostileSet]);
      await waitGone(benign, [...quietSet, ...busySet, ...restartSet], timeoutMs);
      await waitGone(hostile, hostileSet, timeoutMs);
    }
    return {
      scenario: "fairness",
      instances: hostileCount,
      benign: BENIGN,
      size: SIZE,
      summary: {
        quietMs: summarize(repetitions.map((r) => r.quietMs)),
        busyMs: summarize(repetitions.map((r) => r.busyMs)),
        ratio: summarize(repetitions.map((r) => r.ratio)),
        hostileMs: summarize(repetitions.map((r) => r.hostileMs)),
        hostilePerSecond: summarize(repetitions.map((r) => r.hostilePerSecond)),
        healthFailedBusy: summarize(repetitions.map((r) => r.busyHealth.failed)),
        healthSlowestBusyMs: summarize(repetitions.map((r) => r.busyHealth.slowestMs)),
        restartFirstReadyMs: summarize(repetitions.map((r) => r.restartFirstReadyMs)),
        restartAllReadyMs: summarize(repetitions.map((r) => r.restartAllReadyMs)),
        restartRatio: summarize(repetitions.map((r) => r.restartRatio)),
        healthFailedRestart: summarize(repetitions.map((r) => r.restartHealth.failed)),
      },
      repetitions,
    };
  } finally {
    await Promise.all([benign.stop(), hostile.stop()]);
  }
}
