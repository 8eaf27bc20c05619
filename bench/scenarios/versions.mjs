// API versions: what the conversion webhook costs a read, and how fast a storage
// migration moves N instances, each as a ratio to the plain operation in the same run.
// 1. N instances at v1alpha1; an RGD revision adds v1beta1 as a served, non-storage version.
// 2. Conversion: sequential GETs of sampled instances at v1alpha1 (the stored version: no webhook)
//    and at v1beta1 (every GET is a ConversionReview to the controller), interleaved; p50/p99.
// 3. Migration: once every instance is Ready, the harness rewrites every instance once with a
//    no-op update at the controller's client limits and with as many updates in flight as the
//    migration keeps (8) (the plain-update baseline, which the API server does not store), then
//    once with an annotation changed (a stored update); then a revision makes v1beta1 the
//    storage version and the controller migrates all N (pace lifted to its client limit); the time
//    until storedVersions is [v1beta1], against each baseline's.
import { setTimeout as sleep } from "node:timers/promises";
import { log, pool, waitUntil } from "../lib/progress.mjs";
import { round, summarize } from "../lib/stats.mjs";
import { isReady } from "../lib/tracker.mjs";
import { ensureNamespaces, installRgd, HARNESS_MANAGER } from "../lib/workload.mjs";

const GROUP = "kro.run";
const KIND = "BenchVersioned";
const PLURAL = "benchversioneds";
const NAMESPACE = "bench-versions";
const SAMPLES = 200;
/** Rewrites a storage migration keeps in flight (src/controller/conversion/storage-migration.ts). */
const MIGRATION_IN_FLIGHT = 8;

function rgd(extra) {
  return {
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "bench-versions" },
    spec: {
      schema: {
        apiVersion: "v1alpha1",
        kind: KIND,
        spec: { port: "integer | default=80", team: 'string | default="web"' },
        ...extra,
      },
      resources: [
        {
          id: "config",
          template: {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "${schema.metadata.name}-config" },
            data: { port: "${string(schema.spec.port)}", team: "${schema.spec.team}" },
          },
        },
      ],
    },
  };
}
const v1beta1 = (storage) => ({
  versions: [
    {
      name: "v1beta1",
      storage,
      spec: { ports: { http: "integer | default=80" }, owner: { team: 'string | default="web"' } },
      conversion: {
        toHub: { spec: { port: "${self.spec.ports.http}", team: "${self.spec.owner.team}" } },
        fromHub: { spec: { ports: { http: "${self.spec.port}" }, owner: { team: "${self.spec.team}" } } },
      },
    },
  ],
});
const ref = (version, name) => ({ apiVersion: `${GROUP}/${version}`, kind: KIND, namespace: NAMESPACE, name });

async function timedGet(client, version, name) {
  const started = process.hrtime.bigint();
  await client.get(ref(version, name));
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function runVersions(bench) {
  const { args, harness } = bench;
  const instances = args.instances ?? 1000;
  const timeoutMs = args.timeout * 1000;
  const names = Array.from({ length: instances }, (_, i) => `v-${i}`);
  log(
    `versions: ${instances} instances, conversion latency over ${SAMPLES} GETs per version, storage migration against a plain update`,
  );
  // A controller that migrates as fast as its client limit allows: the figure is throughput.
  await bench.controller?.stop();
  await bench.startController([
    "--storage-migration-qps",
    String(Math.max(args.qps, 1) * 10),
    "--storage-migration-page-size",
    "500",
  ]);
  await ensureNamespaces(harness, [NAMESPACE]);
  await installRgd(harness, rgd({}), timeoutMs);
  await waitUntil(
    "the instance kind to be served",
    async () => {
      try {
        await harness.list(`${GROUP}/v1alpha1`, KIND, { namespace: NAMESPACE });
        return true;
      } catch {
        return undefined;
      }
    },
    { timeoutMs, intervalMs: 200 },
  );
  await pool(names, 32, (name) =>
    harness.create({
      apiVersion: `${GROUP}/v1alpha1`,
      kind: KIND,
      metadata: { name, namespace: NAMESPACE },
      spec: { port: 8080, team: name },
    }),
  );
  // Measured once the controller is done with them: its first reconciles would otherwise share the
  // API server and the client's rate limit with what is measured, and conflict with the plain update.
  await waitUntil(
    "every instance to be Ready",
    async () => {
      const listed = await harness.list(`${GROUP}/v1alpha1`, KIND, { namespace: NAMESPACE });
      return listed.items.filter((o) => isReady(o)).length === instances ? true : undefined;
    },
    { timeoutMs, intervalMs: 200 },
  );
  await installRgd(harness, rgd(v1beta1(false)), timeoutMs);
  await waitUntil(
    "v1beta1 to be served",
    async () => {
      try {
        await harness.get(ref("v1beta1", names[0]));
        return true;
      } catch {
        return undefined;
      }
    },
    { timeoutMs, intervalMs: 200 },
  );

  const plain = [];
  const converted = [];
  const sample = Array.from(
    { length: Math.min(SAMPLES, instances) },
    (_, i) => names[Math.floor((i * instances) / Math.min(SAMPLES, instances))],
  );
  for (const name of sample) {
    plain.push(await timedGet(harness, "v1alpha1", name));
    converted.push(await timedGet(harness, "v1beta1", name));
  }
  const plainStats = summarize(plain);
  const convertedStats = summarize(converted);
  log(
    `versions: GET p50 ${plainStats.p50} ms plain, ${convertedStats.p50} ms converted; p99 ${plainStats.p99} / ${convertedStats.p99} ms`,
  );

  // The plain-update baseline: list and rewrite every object once, as the migration does, with the
  // controller's client limits and the migration's rewrites in flight. The API server does not
  // store an update whose encoding is unchanged (its resourceVersion stays), whereas a migration's
  // rewrite is stored; so a second baseline changes an annotation, which is stored.
  const updateAll = async (change) => {
    const began = Date.now();
    const listed = await bench.baselineClient.list(`${GROUP}/v1alpha1`, KIND, { namespace: NAMESPACE });
    // A conflict means the controller wrote the instance since the list (its status): skipped, as
    // the migration skips it (that write already stored it anew).
    await pool(listed.items, MIGRATION_IN_FLIGHT, (item) =>
      bench.baselineClient.replace(change(item), { fieldManager: HARNESS_MANAGER }).catch((error) => {
        if (error?.status !== 409) throw error;
      }),
    );
    return Date.now() - began;
  };
  const baselineMs = await updateAll((item) => item);
  // The client's burst refilled, as the controller's is when the migration starts.
  await sleep(Math.ceil((args.burst / Math.max(args.qps, 1)) * 1000) + 500);
  const storedMs = await updateAll((item) => ({
    ...item,
    metadata: { ...item.metadata, annotations: { ...item.metadata?.annotations, "bench.kro.run/touched": "1" } },
  }));

  const started = Date.now();
  await harness.apply(rgd(v1beta1(true)), { fieldManager: HARNESS_MANAGER, force: true });
  const crdRef = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    name: `${PLURAL}.${GROUP}`,
  };
  await waitUntil(
    "storedVersions to be [v1beta1]",
    async () => {
      const stored = (await harness.get(crdRef)).status?.storedVersions ?? [];
      return stored.length === 1 && stored[0] === "v1beta1" ? true : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
  const migrationMs = Date.now() - started;
  log(
    `versions: migration of ${instances} in ${(migrationMs / 1000).toFixed(1)} s (plain update ${(baselineMs / 1000).toFixed(1)} s, stored ${(storedMs / 1000).toFixed(1)} s)`,
  );

  await harness
    .delete({ apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", name: "bench-versions" })
    .catch(() => undefined);
  await harness.delete({ apiVersion: "v1", kind: "Namespace", name: NAMESPACE }).catch(() => undefined);
  return {
    scenario: "versions",
    instances,
    samples: sample.length,
    summary: {
      getPlainMs: plainStats,
      getConvertedMs: convertedStats,
      conversionRatioP50: round(convertedStats.p50 / plainStats.p50),
      conversionRatioP99: round(convertedStats.p99 / plainStats.p99),
      migrationMs,
      plainUpdateMs: baselineMs,
      migrationPerSecond: round((instances * 1000) / migrationMs, 1),
      plainUpdatePerSecond: round((instances * 1000) / baselineMs, 1),
      migrationRatioToPlainUpdate: round(migrationMs / baselineMs),
      storedUpdateMs: storedMs,
      migrationRatioToStoredUpdate: round(migrationMs / storedMs),
    },
  };
}
