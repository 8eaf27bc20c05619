// The cost of gating an RGD change (docs/design/rollouts.md): N instances of an RGD without a
// policy and N of the same RGD with spec.rollout (a 1% canary wave, then half, then everyone; at
// most a quarter moved and not yet healthy at once; no pause), converged; then the same harmless
// change to both, one after the other, repeated. Measured: from the RGD write until every child
// ConfigMap carries the change (and, with the policy, the RGD says AllPropagated), and the writes
// to instances and their ConfigMaps meanwhile. The ratio waves/plain is the overhead of the gates.
import { attributable, diffTotals, scrapeRequestTotals, writes } from "../lib/apiserver-metrics.mjs";
import { log, waitUntil } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";
import { InstanceTracker } from "../lib/tracker.mjs";
import { createInstances, ensureNamespaces, HARNESS_MANAGER, installRgd, spread, waitReady } from "../lib/workload.mjs";

const GROUP = "bench.kro.run";
const VERSION = "v1alpha1";
const NAMESPACES = 10;
const LABEL = "bench.kro.run/rollout";

const variants = {
  plain: { kind: "BenchRollPlain", plural: "benchrollplains", rgdName: "bench-roll-plain", rollout: undefined },
  waves: {
    kind: "BenchRollWaves",
    plural: "benchrollwaves",
    rgdName: "bench-roll-waves",
    rollout: {
      waves: [{ name: "canary", percent: 1 }, { name: "half", percent: 50 }, { name: "everyone" }],
      maxUpdating: "25%",
      gate: { readyWithin: "5m" },
    },
  },
};

function rgd(variant, rev) {
  const v = variants[variant];
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: v.rgdName },
    spec: {
      schema: { apiVersion: VERSION, group: GROUP, kind: v.kind, spec: { value: 'string | default="a"' } },
      ...(v.rollout === undefined ? {} : { rollout: v.rollout }),
      resources: [
        {
          id: "cm",
          readyWhen: ['${cm.data.rev != ""}'],
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.metadata.name}-roll", labels: { [LABEL]: variant } },
            data: { value: "${schema.spec.value}", rev },
          },
        },
      ],
    },
  };
}

const instance = (variant) => (name, namespace) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: variants[variant].kind,
  metadata: { name, namespace },
  spec: { value: name },
});

export async function runRollout(bench) {
  const { args, harness, cluster } = bench;
  const count = args.instances ?? 1000;
  const timeoutMs = args.timeout * 1000;
  log(`rollout: ${count} instances without a policy and ${count} with waves; the same change to each`);
  const children = harness.informer({ apiVersion: "v1", kind: "ConfigMap", labelSelector: LABEL });
  children.start();
  await children.waitForSync({ timeoutMs: 60_000 });
  const trackers = {};
  try {
    const ns = Array.from({ length: NAMESPACES }, (_, i) => `rollout-${i}`);
    await ensureNamespaces(harness, ns);
    for (const variant of Object.keys(variants)) {
      const v = variants[variant];
      await installRgd(harness, rgd(variant, "r0"));
      trackers[variant] = await new InstanceTracker(harness, `${GROUP}/${VERSION}`, v.kind).start();
      const objects = spread(count, variant, ns, instance(variant));
      await createInstances(harness, trackers[variant], objects);
      await waitReady(trackers[variant], objects, timeoutMs, `${variant}: instances to be Ready`);
    }
    const atRev = (variant, rev) =>
      children.store.list().filter((o) => o.metadata?.labels?.[LABEL] === variant && o.data?.rev === rev).length;
    const propagated = async (variant) => {
      const object = await harness.get({
        apiVersion: "kro.run/v1alpha1",
        kind: "ResourceGraphDefinition",
        name: variants[variant].rgdName,
      });
      return object.status?.conditions?.find((c) => c.type === "Propagated")?.reason;
    };
    const repetitions = [];
    for (let rep = 1; rep <= args.repeat; rep++) {
      const rev = `r${rep}`;
      const repetition = {};
      for (const variant of Object.keys(variants)) {
        const before = await scrapeRequestTotals(cluster);
        const started = Date.now();
        await harness.apply(rgd(variant, rev), { fieldManager: HARNESS_MANAGER, force: true });
        await waitUntil(
          `${variant}: every child at ${rev}`,
          async () =>
            atRev(variant, rev) === count &&
            (variants[variant].rollout === undefined || (await propagated(variant)) === "AllPropagated")
              ? true
              : undefined,
          { timeoutMs, intervalMs: 100, describe: () => `${atRev(variant, rev)}/${count}` },
        );
        const tookMs = Date.now() - started;
        const delta = diffTotals(before, await scrapeRequestTotals(cluster));
        const scope = { resources: ["configmaps"], instanceResource: variants[variant].plural };
        repetition[variant] = { ms: tookMs, writesPerInstance: round(writes(attributable(delta, scope)) / count, 2) };
        log(`rollout r${rep} ${variant}: ${tookMs} ms, ${repetition[variant].writesPerInstance} writes per instance`);
      }
      repetition.ratio = round(repetition.waves.ms / Math.max(1, repetition.plain.ms), 2);
      repetitions.push(repetition);
    }
    return {
      scenario: "rollout",
      instances: count,
      summary: {
        plainMs: summarize(repetitions.map((r) => r.plain.ms)),
        wavesMs: summarize(repetitions.map((r) => r.waves.ms)),
        ratio: summarize(repetitions.map((r) => r.ratio)),
        plainWritesPerInstance: summarize(repetitions.map((r) => r.plain.writesPerInstance)),
        wavesWritesPerInstance: summarize(repetitions.map((r) => r.waves.writesPerInstance)),
      },
      repetitions,
    };
  } finally {
    await children.stop();
    await Promise.all(Object.values(trackers).map((t) => t.stop()));
  }
}
