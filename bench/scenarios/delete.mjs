// Bulk deletion: N converged fan-out instances deleted at once; the time until
// the controller has removed every child and let every instance go, against the null baseline
// deleting the same 6N children (same client settings, `--workers` instances in flight, each
// instance's children in the same two waves as the controller: the dependent ConfigMap first).
import { attributable, byVerb, diffTotals, scrapeRequestTotals } from "../lib/apiserver-metrics.mjs";
import { log, pool } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";
import { InstanceTracker } from "../lib/tracker.mjs";
import {
  createInstances,
  deleteInstances,
  ensureNamespaces,
  installRgd,
  runBaseline,
  spread,
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
const INSTANCE_LABEL = "bench.kro.run/instance";

/** The null baseline's deletion: the same children, per instance in two waves, `concurrency` instances at once. */
async function baselineDelete(client, harness, namespaces, concurrency) {
  const byInstance = new Map();
  for (const [apiVersion, kind] of CHILD_KINDS) {
    for (const namespace of namespaces) {
      for (const o of (await harness.list(apiVersion, kind, { namespace, labelSelector: INSTANCE_LABEL })).items) {
        const key = `${namespace}/${o.metadata.labels[INSTANCE_LABEL]}`;
        if (!byInstance.has(key)) byInstance.set(key, []);
        byInstance.get(key).push({ apiVersion, kind, name: o.metadata.name, namespace, uid: o.metadata.uid });
      }
    }
  }
  const started = Date.now();
  let count = 0;
  await pool([...byInstance.values()], concurrency, async (children) => {
    const last = children.filter((c) => c.name.endsWith("-endpoint"));
    for (const wave of [last, children.filter((c) => !last.includes(c))]) {
      await Promise.all(
        wave.map((c) => client.delete(c, { preconditions: { uid: c.uid }, propagationPolicy: "Background" })),
      );
      count += wave.length;
    }
  });
  return { ms: Date.now() - started, children: count };
}

export async function runDelete(bench) {
  const { args, harness, cluster } = bench;
  const instances = args.instances ?? 1000;
  const timeoutMs = args.timeout * 1000;
  const namespaces = (prefix) => Array.from({ length: NAMESPACES }, (_, i) => `${prefix}-${i}`);
  log(
    `delete: ${instances} converged instances × ${CHILDREN} children deleted at once, ${args.repeat} repetition(s) after ${args.warmup} warm-up`,
  );
  await installRgd(harness, fanoutRgd());
  const tracker = await new InstanceTracker(harness, `${FANOUT.group}/${FANOUT.version}`, FANOUT.kind).start();
  const repetitions = [];
  try {
    for (let rep = -args.warmup; rep < args.repeat; rep++) {
      const warm = rep < 0;
      const size = warm ? Math.min(20, instances) : instances;
      const tag = warm ? `w${-rep}` : `r${rep}`;
      const nullNs = namespaces(`del-null-${tag}`);
      const ns = namespaces(`del-${tag}`);
      await ensureNamespaces(harness, [...nullNs, ...ns]);

      log(`delete ${tag}: null baseline creates ${size * CHILDREN} objects, then deletes them`);
      await runBaseline(
        bench.baselineClient,
        spread(size, "inst", nullNs, (name, n) => fanoutBaselineWaves(name, n)),
        args.baselineConcurrency,
      );
      const baseline = await baselineDelete(bench.baselineClient, harness, nullNs, args.baselineConcurrency);

      log(`delete ${tag}: ${size} instances converge`);
      const objects = spread(size, "inst", ns, (name, n) => fanoutInstance(name, n));
      await createInstances(harness, tracker, objects);
      await waitReady(tracker, objects, timeoutMs, "instances to be Ready");
      await new Promise((resolve) => setTimeout(resolve, 2000));

      log(`delete ${tag}: the controller deletes ${size} instances`);
      const before = await scrapeRequestTotals(cluster);
      const started = Date.now();
      await deleteInstances(harness, objects);
      await waitGone(tracker, objects, timeoutMs);
      const deleteMs = Date.now() - started;
      const requests = attributable(diffTotals(before, await scrapeRequestTotals(cluster)), {
        resources: FANOUT_CHILD_RESOURCES,
        instanceResource: FANOUT.plural,
        harness: { [`DELETE ${FANOUT.plural}`]: size },
      });
      const left = (
        await Promise.all(
          CHILD_KINDS.flatMap(([apiVersion, kind]) =>
            ns.map((namespace) =>
              harness.list(apiVersion, kind, { namespace, labelSelector: "app.kubernetes.io/managed-by=kro" }),
            ),
          ),
        )
      ).reduce((n, l) => n + l.items.length, 0);
      log(
        `delete ${tag}: ${(deleteMs / 1000).toFixed(1)} s (baseline ${(baseline.ms / 1000).toFixed(1)} s); children left: ${left}`,
      );
      if (warm) continue;
      repetitions.push({
        instances: size,
        children: size * CHILDREN,
        deleteMs,
        baselineDeleteMs: baseline.ms,
        baselineChildren: baseline.children,
        ratioToBaseline: round(deleteMs / baseline.ms),
        childrenLeft: left,
        requests,
        requestsPerInstanceByVerb: byVerb(requests, size),
      });
    }
  } finally {
    await tracker.stop();
  }
  const med = (f) => summarize(repetitions.map(f));
  return {
    scenario: "delete",
    instances,
    childrenPerInstance: CHILDREN,
    summary: {
      deleteMs: med((r) => r.deleteMs),
      baselineDeleteMs: med((r) => r.baselineDeleteMs),
      ratioToBaseline: med((r) => r.ratioToBaseline),
      childrenLeft: med((r) => r.childrenLeft),
    },
    repetitions,
  };
}
