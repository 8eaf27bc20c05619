// Many kinds: K RGDs, each its own instance kind with a child of a distinct CRD kind
// and an externalRef to a ConfigMap of its own; N instances of each created at once. The
// controller runs with leader election. Reported: time until every RGD is Active, time until
// every instance is Ready, open sockets, p99 of request queueing (socket pool and rate limiter),
// the largest gap between two renewals of the leader Lease seen from outside and the renewal
// failures the controller logged, RSS. Scale with --kinds K --instances N.
import { readFile } from "node:fs/promises";
import { histogramCount, histogramQuantile, httpText, openSockets, watchLease } from "../lib/controller-metrics.mjs";
import { ProcSampler, readProc } from "../lib/proc.mjs";
import { log, pool, waitUntil } from "../lib/progress.mjs";
import { round } from "../lib/stats.mjs";
import { InstanceTracker, objectKey } from "../lib/tracker.mjs";
import { HARNESS_MANAGER, ensureNamespaces } from "../lib/workload.mjs";

const GROUP = "kinds.bench.kro.run";
const NAMESPACE = "kinds-bench";
const LEASE = { namespace: "default", name: "kinds-bench.kro.run" };

const partCrd = (i) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `part${i}s.${GROUP}` },
  spec: {
    group: GROUP,
    scope: "Namespaced",
    names: { plural: `part${i}s`, singular: `part${i}`, kind: `Part${i}` },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
});

const kindOf = (i) => `BenchKind${i}`;

const rgd = (i) => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "ResourceGraphDefinition",
  metadata: { name: `bench-kind-${i}` },
  spec: {
    schema: {
      apiVersion: "v1alpha1",
      group: GROUP,
      kind: kindOf(i),
      spec: { size: "integer | default=1" },
      status: { setting: "${settings.data.value}" },
    },
    resources: [
      {
        id: "settings",
        externalRef: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `kind-${i}-settings`, namespace: NAMESPACE },
        },
      },
      {
        id: "part",
        template: {
          apiVersion: `${GROUP}/v1`,
          kind: `Part${i}`,
          metadata: { name: "${schema.metadata.name}-part" },
          spec: { size: "${schema.spec.size}", setting: "${settings.data.value}" },
        },
      },
    ],
  },
});

export async function runKinds(bench) {
  const { args, harness } = bench;
  const kinds = args.kinds ?? 300;
  const perKind = args.instances ?? 10;
  const timeoutMs = args.timeout * 1000;
  log(
    `kinds: ${kinds} RGDs × ${perKind} instances, each RGD its own child CRD kind and external ConfigMap; controller with leader election`,
  );
  await bench.controller.stop();
  const controller = await bench.startController([
    "--leader-elect",
    "--leader-election-namespace",
    LEASE.namespace,
    "--leader-election-id",
    LEASE.name,
  ]);
  const lease = watchLease(harness, LEASE.namespace, LEASE.name);
  const sampler = new ProcSampler(controller.pid, 1000).start();
  let maxSockets = 0;
  const socketTimer = setInterval(() => {
    try {
      maxSockets = Math.max(maxSockets, openSockets(controller.pid));
    } catch {
      /* exited */
    }
  }, 1000);
  const trackers = [];
  try {
    await ensureNamespaces(harness, [NAMESPACE]);
    const indexes = Array.from({ length: kinds }, (_, i) => i);
    log(`kinds: ${kinds} child CRDs and external ConfigMaps`);
    await pool(indexes, 8, async (i) => {
      await harness.apply(partCrd(i), { fieldManager: HARNESS_MANAGER, force: true });
      await harness.apply(
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `kind-${i}-settings`, namespace: NAMESPACE },
          data: { value: `v${i}` },
        },
        { fieldManager: HARNESS_MANAGER, force: true },
      );
    });
    await waitUntil(
      "child CRDs to be Established",
      async () => {
        const list = await harness.list("apiextensions.k8s.io/v1", "CustomResourceDefinition", {});
        const established = list.items.filter(
          (c) =>
            c.spec?.group === GROUP &&
            c.spec.names.kind.startsWith("Part") &&
            (c.status?.conditions ?? []).some((x) => x.type === "Established" && x.status === "True"),
        );
        return established.length >= kinds ? true : undefined;
      },
      { timeoutMs, intervalMs: 1000 },
    );

    log(`kinds: ${kinds} RGDs`);
    const rgdStarted = Date.now();
    await pool(indexes, 8, (i) => harness.apply(rgd(i), { fieldManager: HARNESS_MANAGER, force: true }));
    await waitUntil(
      "RGDs to be Active",
      async () => {
        const list = await harness.list("kro.run/v1alpha1", "ResourceGraphDefinition", {});
        const active = list.items.filter(
          (r) => r.metadata.name.startsWith("bench-kind-") && r.status?.state === "Active",
        ).length;
        return active >= kinds ? true : undefined;
      },
      { timeoutMs, intervalMs: 1000, describe: () => "" },
    );
    const allActiveMs = Date.now() - rgdStarted;
    log(`kinds: all ${kinds} RGDs Active after ${(allActiveMs / 1000).toFixed(1)} s`);

    for (const i of indexes) trackers.push(await new InstanceTracker(harness, `${GROUP}/v1alpha1`, kindOf(i)).start());
    const objects = indexes.flatMap((i) =>
      Array.from({ length: perKind }, (_, n) => ({
        apiVersion: `${GROUP}/v1alpha1`,
        kind: kindOf(i),
        metadata: { name: `i${n}`, namespace: NAMESPACE },
        spec: {},
      })),
    );
    log(`kinds: ${objects.length} instances`);
    const started = Date.now();
    await pool(objects, 32, (o) => harness.create(o));
    const keys = objects.map((o) => [Number(o.kind.slice("BenchKind".length)), objectKey(o)]);
    const ready = () => keys.filter(([i, k]) => trackers[i].readyAt.has(k)).length;
    await waitUntil("instances to be Ready", () => (ready() === keys.length ? true : undefined), {
      timeoutMs,
      intervalMs: 500,
      describe: () => `${ready()}/${keys.length}`,
    });
    const allReadyMs = Math.max(...keys.map(([i, k]) => trackers[i].readyAt.get(k))) - started;
    log(`kinds: all ${objects.length} instances Ready after ${(allReadyMs / 1000).toFixed(1)} s`);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idle = { rssMb: readProc(controller.pid).rssMb, sockets: openSockets(controller.pid) };
    const metrics = await httpText(`${controller.metricsUrl}`);
    const logText = await readFile(controller.logFile, "utf8").catch(() => "");
    const renewalFailures = (logText.match(/lease renewal failed/g) ?? []).length;
    const lost = (logText.match(/lost leadership/g) ?? []).length;
    const leaseSeen = lease.stop();
    return {
      scenario: "kinds",
      kinds,
      instancesPerKind: perKind,
      instances: objects.length,
      summary: {
        allActiveMs,
        allReadyMs,
        maxOpenSockets: maxSockets,
        idleOpenSockets: idle.sockets,
        poolWaitP99Ms: msOf(histogramQuantile(metrics, "kro_api_pool_wait_seconds", 0.99, 'pool="request"')),
        rateLimitWaitP99Ms: msOf(histogramQuantile(metrics, "kro_api_rate_limit_wait_seconds", 0.99)),
        rateLimitedRequests: histogramCount(metrics, "kro_api_rate_limit_wait_seconds"),
        leaseRenewalFailures: renewalFailures,
        leadershipLost: lost,
        leaseMaxRenewalGapMs: leaseSeen.maxGapMs,
        leaseRenewalsSeen: leaseSeen.renewals,
        peakRssMb: round(sampler.stop().peakRssMb, 1),
        idleRssMb: round(idle.rssMb, 1),
      },
    };
  } finally {
    clearInterval(socketTimer);
    sampler.stop();
    lease.stop();
    await Promise.all(trackers.map((t) => t.stop()));
  }
}

const msOf = (seconds) => (seconds === null ? null : seconds === Infinity ? "> bucket max" : round(seconds * 1000, 1));
