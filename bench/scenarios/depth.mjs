// Depth and update storm (benchmarks.md §2): a 20-ConfigMap chain + forEach of 50 Secrets +
// includeWhen on 5 nodes. Per repetition: one instance alone (chain time per level and total,
// measured from the moment its first node is seen), the null baseline for N instances, N
// instances at once, then one spec field changed on all N at once (propagation to the last level).
import path from "node:path";
import { performance } from "node:perf_hooks";
import { attributable, byVerb, diffTotals, scrapeRequestTotals, writes } from "../lib/apiserver-metrics.mjs";
import { installCelCounter } from "../lib/cel-counter.mjs";
import { ChainWatch } from "../lib/chain-watch.mjs";
import { ProcSampler, readProc } from "../lib/proc.mjs";
import { log, pool, waitUntil } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";
import { InstanceTracker, objectKey } from "../lib/tracker.mjs";
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
  CHAIN_LENGTH,
  DEPTH,
  DEPTH_CHILD_RESOURCES,
  DEPTH_CHILDREN,
  depthBaselineWaves,
  depthInstance,
  depthRgd,
} from "../fixtures/depth-rgd.mjs";

const NAMESPACES = 10;
const LAST = CHAIN_LENGTH - 1;

export async function runDepth(bench, controller) {
  const { args, harness, cluster, root } = bench;
  const instances = args.instances ?? 100;
  const timeoutMs = args.timeout * 1000;
  const { compileMs, celPerPass, celInitialReconcile, passesInitial } = await measureInProcess(root);
  log(
    `depth: ${instances} instances × ${DEPTH_CHILDREN} children (chain of ${CHAIN_LENGTH}), ${args.repeat} repetition(s) after ${args.warmup} warm-up`,
  );
  await installRgd(harness, depthRgd());
  const tracker = await new InstanceTracker(harness, `${DEPTH.group}/${DEPTH.version}`, DEPTH.kind).start();
  const chain = await new ChainWatch(harness, "bench.kro.run/scenario=depth").start();
  const chainMs = (key, value) => {
    const first = chain.at(key, 0, value);
    const last = chain.at(key, LAST, value);
    return first === undefined || last === undefined ? undefined : last - first;
  };
  const repetitions = [];
  try {
    for (let rep = -args.warmup; rep < args.repeat; rep++) {
      const warm = rep < 0;
      const tag = warm ? `w${-rep}` : `r${rep}`;
      const size = warm ? Math.min(5, instances) : instances;
      const ns = Array.from({ length: NAMESPACES }, (_, i) => `depth-${tag}-${i}`);
      const nullNs = ns.map((n) => `null-${n}`);
      await ensureNamespaces(harness, [...ns, ...nullNs]);

      // 1. One instance alone: the chain's own latency, no queueing behind other instances.
      const solo = depthInstance("solo", ns[0]);
      await createInstances(harness, tracker, [solo]);
      await waitReady(tracker, [solo], timeoutMs, "the solo instance to be Ready");
      const soloKey = objectKey(solo);
      const levels = Array.from({ length: CHAIN_LENGTH }, (_, i) => chain.at(soloKey, i, "v1"));
      const soloChainMs = chainMs(soloKey, "v1");
      log(`depth ${tag}: one instance alone: chain of ${CHAIN_LENGTH} in ${soloChainMs} ms`);

      // 2. The null baseline, then N instances at once.
      log(`depth ${tag}: null baseline, ${size * DEPTH_CHILDREN} objects`);
      const baselineMs = await runBaseline(
        bench.baselineClient,
        spread(size, "inst", nullNs, (name, n) => depthBaselineWaves(name, n)),
        args.baselineConcurrency,
      );
      log(`depth ${tag}: creating ${size} instances`);
      const objects = spread(size, "inst", ns, (name, n) => depthInstance(name, n));
      const before = { totals: await scrapeRequestTotals(cluster), proc: readProc(controller.pid) };
      const started = Date.now();
      await createInstances(harness, tracker, objects);
      const keys = await waitReady(tracker, objects, timeoutMs, "instances to be Ready");
      const convergeMs = Math.max(...keys.map((k) => tracker.readyAt.get(k))) - started;
      const after = { totals: await scrapeRequestTotals(cluster), proc: readProc(controller.pid) };
      const requests = attributable(diffTotals(before.totals, after.totals), {
        resources: DEPTH_CHILD_RESOURCES,
        instanceResource: DEPTH.plural,
        harness: { [`POST ${DEPTH.plural}`]: size },
      });
      const loadedChain = summarize(keys.map((k) => chainMs(k, "v1")).filter((x) => x !== undefined));
      log(
        `depth ${tag}: all Ready in ${(convergeMs / 1000).toFixed(1)} s (baseline ${(baselineMs / 1000).toFixed(1)} s); update storm`,
      );

      // 3. Update storm: one spec field on all N at once; propagation = patch sent → last level seen.
      const value = `v2-${tag}`;
      const sampler = new ProcSampler(controller.pid).start();
      const stormStarted = Date.now();
      const patchedAt = new Map();
      await pool(objects, 32, async (o) => {
        patchedAt.set(objectKey(o), Date.now());
        await harness.patch(
          { apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace },
          { spec: { value } },
        );
      });
      const propagated = () => keys.filter((k) => chain.at(k, LAST, value) !== undefined).length;
      await waitUntil("the update to reach the last level", () => (propagated() === keys.length ? true : undefined), {
        timeoutMs,
        intervalMs: 50,
        describe: () => `${propagated()}/${keys.length}`,
      });
      const storm = summarize(keys.map((k) => chain.at(k, LAST, value) - patchedAt.get(k)));
      const stormAllMs = Math.max(...keys.map((k) => chain.at(k, LAST, value))) - stormStarted;
      const { peakRssMb } = sampler.stop();
      const heapAfterStorm = await controller.heap();
      const [firstKey] = keys;
      const stormLevelTimesMs = Array.from(
        { length: CHAIN_LENGTH },
        (_, i) => (chain.at(firstKey, i, value) ?? NaN) - patchedAt.get(firstKey),
      );
      let deleteAllMs = null;
      if (args.bulkDelete) {
        log(
          `depth ${tag}: storm propagated to all in ${(stormAllMs / 1000).toFixed(1)} s; the controller deletes them all`,
        );
        const deleteStarted = Date.now();
        await deleteInstances(harness, [solo, ...objects]);
        await waitGone(tracker, [solo, ...objects], timeoutMs);
        deleteAllMs = Date.now() - deleteStarted;
      } else {
        log(`depth ${tag}: storm propagated to all in ${(stormAllMs / 1000).toFixed(1)} s; tearing down`);
        await teardown(
          harness,
          tracker,
          [solo, ...objects],
          [
            ["v1", "ConfigMap"],
            ["v1", "Secret"],
          ],
          timeoutMs,
        );
      }
      if (warm) continue;
      repetitions.push({
        instances: size,
        children: size * DEPTH_CHILDREN,
        soloChainMs,
        soloLevelTimesMs: levels.map((t) => (t === undefined || levels[0] === undefined ? null : t - levels[0])),
        baselineMs,
        convergeMs,
        ratioToBaseline: round(baselineMs / convergeMs),
        loadedChainMs: loadedChain,
        requestsPerInstanceByVerb: byVerb(requests, size),
        writesPerInstance: round(writes(requests) / size, 2),
        cpuSeconds: round(after.proc.cpuSeconds - before.proc.cpuSeconds, 2),
        stormPropagationMs: storm,
        stormAllMs,
        stormLevelTimesMs,
        stormPeakRssMb: round(peakRssMb, 1),
        heapAfterStormMb: Object.fromEntries(Object.entries(heapAfterStorm).map(([k, v]) => [k, round(v, 1)])),
        deleteAllMs,
      });
    }
  } finally {
    await Promise.all([tracker.stop(), chain.stop()]);
  }
  const med = (f) => summarize(repetitions.map(f));
  return {
    scenario: "depth",
    instances,
    childrenPerInstance: DEPTH_CHILDREN,
    chainLength: CHAIN_LENGTH,
    compileMs,
    celEvaluationsPerReconcile: celPerPass,
    celEvaluationsFirstReconcile: celInitialReconcile,
    runtimePassesFirstReconcile: passesInitial,
    summary: {
      singleChainMs: med((r) => r.soloChainMs),
      singlePerLevelMs: med((r) => r.soloChainMs / LAST),
      loadedChainP50Ms: med((r) => r.loadedChainMs.p50),
      loadedChainP99Ms: med((r) => r.loadedChainMs.p99),
      convergeMs: med((r) => r.convergeMs),
      baselineMs: med((r) => r.baselineMs),
      ratioToBaseline: med((r) => r.ratioToBaseline),
      stormP50Ms: med((r) => r.stormPropagationMs.p50),
      stormP99Ms: med((r) => r.stormPropagationMs.p99),
      stormAllMs: med((r) => r.stormAllMs),
      stormPeakRssMb: med((r) => r.stormPeakRssMb),
      deleteAllMs: med((r) => r.deleteAllMs),
    },
    repetitions,
  };
}

/**
 * In this process, on the same dist/ modules as the controller: the RGD's compile time, and how
 * many CEL programs one runtime pass runs — for a converged instance (one pass per no-op
 * reconcile) and for a new one (the controller evaluates again after every apply round).
 */
async function measureInProcess(root) {
  const counter = await installCelCounter(root);
  const { compileRgd } = await import(path.join(root, "dist/src/graph/index.js"));
  const { schemaResolverFor } = await import(path.join(root, "dist/src/cli/inputs/inputs.js"));
  const { createMemoryLookup, evaluateInstance } = await import(path.join(root, "dist/src/runtime/index.js"));
  const resolver = await schemaResolverFor();
  const samples = [];
  let graph;
  for (let i = 0; i < 11; i++) {
    const t = performance.now();
    graph = compileRgd(depthRgd(), { resolver }).graph;
    if (i > 0) samples.push(performance.now() - t);
  }
  const instance = { ...depthInstance("cel", "ns"), metadata: { name: "cel", namespace: "ns", uid: "cel-uid" } };
  const lookup = createMemoryLookup();
  let total = 0;
  let passes = 0;
  let lastPass = 0;
  for (; passes < CHAIN_LENGTH * 2;) {
    counter.count = 0;
    const evaluation = evaluateInstance(graph, instance, lookup, {});
    passes++;
    total += counter.count;
    lastPass = counter.count;
    const size = lookup.size;
    lookup.put(...evaluation.apply.map((o) => ({ ...o, metadata: { ...o.metadata, uid: `${o.metadata.name}-uid` } })));
    if (lookup.size === size) break;
  }
  return { compileMs: summarize(samples), celPerPass: lastPass, celInitialReconcile: total, passesInitial: passes };
}
