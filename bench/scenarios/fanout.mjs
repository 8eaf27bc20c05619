// Fan-out (benchmarks.md §1): N instances × 6 children created at once across 10 namespaces.
// Per repetition: the null baseline applies the same 6N objects with the controller's client,
// concurrency and QPS; then the controller converges N fresh instances; then they are deleted.
import { attributable, byVerb, diffTotals, scrapeRequestTotals, writes } from "../lib/apiserver-metrics.mjs";
import { readProc, ProcSampler } from "../lib/proc.mjs";
import { log } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";
import { InstanceTracker } from "../lib/tracker.mjs";
import {
  createInstances,
  deleteInstances,
  ensureNamespaces,
  installRgd,
  runBaseline,
  spread,
  teardown,
  waitGone,
  waitReady,
} from "../lib/workload.mjs";
import {
  FANOUT,
  FANOUT_CHILD_RESOURCES,
  fanoutBaselineWaves,
  fanoutInstance,
  fanoutRgd,
} from "../fixtures/fanout-rgd.mjs";

const NAMESPACES = 10;
const CHILDREN = 6;
const CHILD_KINDS = [
  ["v1", "ConfigMap"],
  ["v1", "Secret"],
  ["apps/v1", "Deployment"],
  ["v1", "Service"],
  ["networking.k8s.io/v1", "NetworkPolicy"],
];

export async function runFanout(bench, controller) {
  const { args, harness, cluster } = bench;
  const instances = args.instances ?? 1000;
  const timeoutMs = args.timeout * 1000;
  const namespaces = (prefix) => Array.from({ length: NAMESPACES }, (_, i) => `${prefix}-${i}`);
  log(
    `fanout: ${instances} instances × ${CHILDREN} children, ${args.repeat} repetition(s) after ${args.warmup} warm-up`,
  );
  const installMs = await installRgd(harness, fanoutRgd());
  const tracker = await new InstanceTracker(harness, `${FANOUT.group}/${FANOUT.version}`, FANOUT.kind).start();
  const repetitions = [];
  try {
    for (let rep = -args.warmup; rep < args.repeat; rep++) {
      const warm = rep < 0;
      const size = warm ? Math.min(20, instances) : instances;
      const tag = warm ? `w${-rep}` : `r${rep}`;
      const nullNs = namespaces(`null-${tag}`);
      const ns = namespaces(`fanout-${tag}`);
      await ensureNamespaces(harness, [...nullNs, ...ns]);

      let baselineMs = null;
      if (args.skipBaseline) log(`fanout ${tag}: null baseline skipped (--skip-baseline)`);
      else {
        log(`fanout ${tag}: null baseline, ${size * CHILDREN} objects`);
        baselineMs = await runBaseline(
          bench.baselineClient,
          spread(size, "inst", nullNs, (name, n) => fanoutBaselineWaves(name, n)),
          args.baselineConcurrency,
        );
      }

      log(`fanout ${tag}: creating ${size} instances`);
      const objects = spread(size, "inst", ns, (name, n) => fanoutInstance(name, n));
      const sampler = new ProcSampler(controller.pid).start();
      const before = {
        totals: await scrapeRequestTotals(cluster),
        proc: readProc(controller.pid),
        passes: (await controller.reconciles()).instance ?? 0,
      };
      const limits = [];
      const limitSampler = setInterval(() => {
        void controller.concurrency().then(
          (c) => limits.push(c.limit),
          () => undefined,
        );
      }, 1000);
      const stepsBefore = (await controller.concurrency()).steps;
      const started = Date.now();
      await createInstances(harness, tracker, objects);
      const createdMs = Date.now() - started;
      const keys = await waitReady(tracker, objects, timeoutMs, "instances to be Ready");
      const convergeMs = Math.max(...keys.map((k) => tracker.readyAt.get(k))) - started;
      clearInterval(limitSampler);
      const concurrencyAfter = await controller.concurrency();
      const after = { totals: await scrapeRequestTotals(cluster), proc: readProc(controller.pid) };
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const convergedRssMb = readProc(controller.pid).rssMb;
      // Passes over the instances until 2 s after all were Ready (late ones included): 1 when
      // every new instance converges in its first pass and the echoes of its writes queue nothing.
      const passes = ((await controller.reconciles()).instance ?? 0) - before.passes;
      const heap = await controller.heap();
      const requests = attributable(diffTotals(before.totals, after.totals), {
        resources: FANOUT_CHILD_RESOURCES,
        instanceResource: FANOUT.plural,
        harness: { [`POST ${FANOUT.plural}`]: size },
      });
      const ttr = summarize(tracker.timeToReady(keys));

      // Idle: converged and left alone for --idle-seconds (resyncs only): what the controller keeps.
      log(`fanout ${tag}: converged (RSS ${convergedRssMb.toFixed(1)} MB); idle for ${args.idleSeconds} s`);
      await new Promise((resolve) => setTimeout(resolve, args.idleSeconds * 1000));
      const idleRssMb = readProc(controller.pid).rssMb;
      const idleHeap = await controller.heap();
      const { peakRssMb, samples } = sampler.stop();
      let deleteAllMs = null;
      if (args.bulkDelete) {
        log(`fanout ${tag}: all Ready in ${(convergeMs / 1000).toFixed(1)} s; the controller deletes them all`);
        const deleteStarted = Date.now();
        await deleteInstances(harness, objects);
        await waitGone(tracker, objects, timeoutMs);
        deleteAllMs = Date.now() - deleteStarted;
      } else if (args.skipBaseline && rep === args.repeat - 1) {
        // A memory-only run ends here: the bench's cluster is discarded, so deleting 6N objects would only cost time.
        log(
          `fanout ${tag}: all Ready in ${(convergeMs / 1000).toFixed(1)} s; last repetition of a --skip-baseline run, no teardown`,
        );
      } else {
        log(
          `fanout ${tag}: all Ready in ${(convergeMs / 1000).toFixed(1)} s (baseline ${baselineMs === null ? "skipped" : `${(baselineMs / 1000).toFixed(1)} s`}); tearing down`,
        );
        await teardown(harness, tracker, objects, CHILD_KINDS, timeoutMs);
      }
      if (warm) continue;
      repetitions.push({
        instances: size,
        children: size * CHILDREN,
        baselineMs,
        convergeMs,
        createInstancesMs: createdMs,
        ratioToBaseline: baselineMs === null ? null : round(baselineMs / convergeMs),
        baselineObjectsPerSecond: baselineMs === null ? null : round((size * CHILDREN) / (baselineMs / 1000), 1),
        childrenPerSecond: round((size * CHILDREN) / (convergeMs / 1000), 1),
        timeToReadyMs: ttr,
        requests,
        requestsPerInstanceByVerb: byVerb(requests, size),
        writesPerInstance: round(writes(requests) / size, 2),
        reconcilesPerInstance: round(passes / size, 2),
        /** Instances the controller allowed in flight, sampled every second while converging. */
        concurrencyLimit: { peak: Math.max(0, ...limits), median: summarize(limits).p50 ?? null },
        concurrencyWindows: Object.fromEntries(
          Object.entries(concurrencyAfter.steps).map(([reason, n]) => [reason, n - (stepsBefore[reason] ?? 0)]),
        ),
        cpuSeconds: round(after.proc.cpuSeconds - before.proc.cpuSeconds, 2),
        convergedRssMb: round(convergedRssMb, 1),
        peakRssMb: round(peakRssMb, 1),
        idleRssMb: round(idleRssMb, 1),
        /** RSS with the RGD served and no instance yet: the increment per 1,000 instances is measured from it. */
        startRssMb: round(before.proc.rssMb, 1),
        heapMb: Object.fromEntries(Object.entries(heap).map(([k, v]) => [k, round(v, 1)])),
        idleHeapMb: Object.fromEntries(Object.entries(idleHeap).map(([k, v]) => [k, round(v, 1)])),
        deleteAllMs,
        rssSamples: samples,
      });
    }
  } finally {
    await tracker.stop();
  }
  const med = (f) => summarize(repetitions.map(f));
  return {
    scenario: "fanout",
    instances,
    childrenPerInstance: CHILDREN,
    namespaces: NAMESPACES,
    rgdInstallMs: installMs,
    summary: {
      convergeMs: med((r) => r.convergeMs),
      baselineMs: med((r) => r.baselineMs),
      ratioToBaseline: med((r) => r.ratioToBaseline),
      timeToReadyP50Ms: med((r) => r.timeToReadyMs.p50),
      timeToReadyP99Ms: med((r) => r.timeToReadyMs.p99),
      writesPerInstance: med((r) => r.writesPerInstance),
      reconcilesPerInstance: med((r) => r.reconcilesPerInstance),
      cpuSeconds: med((r) => r.cpuSeconds),
      convergedRssMb: med((r) => r.convergedRssMb),
      peakRssMb: med((r) => r.peakRssMb),
      idleRssMb: med((r) => r.idleRssMb),
      idleRssPer1000Mb: med((r) => round(((r.idleRssMb - r.startRssMb) * 1000) / r.instances, 1)),
      convergedRssPer1000Mb: med((r) => round(((r.convergedRssMb - r.startRssMb) * 1000) / r.instances, 1)),
      deleteAllMs: med((r) => r.deleteAllMs),
    },
    repetitions,
  };
}
