/**
 * What the controller does on its own schedule rather than on events: retry at once what the API
 * server's outage made fail when it is back, go over every instance again now and then (as
 * controller-runtime's SyncPeriod), verify delegations again, and publish queue depths and cache
 * sizes. The timers do not keep the process alive; `stop` ends them all.
 */
import type { KubeClient } from "../kube/index.js";
import type { ControllerMetrics } from "../observability/index.js";
import type { ControllerContext } from "./context/index.js";

export interface PeriodicWorkOptions {
  readonly resyncPeriodMs: number;
  readonly metrics: ControllerMetrics | undefined;
  /** Queues every instance of every served kind. */
  readonly resyncInstances: () => void;
}

export function startPeriodicWork(
  ctx: Pick<
    ControllerContext,
    "client" | "instanceQueue" | "rgdQueue" | "delegations" | "informers" | "logger" | "options"
  >,
  options: PeriodicWorkOptions,
): { stop(): void } {
  const stopping = new AbortController();
  void retryWhenServerBack(ctx, ctx.client, stopping.signal);
  const timers = [
    // Level-based safety net: every instance is looked at again.
    setInterval(options.resyncInstances, options.resyncPeriodMs),
    // A right revoked since a delegation was verified is seen within the period.
    setInterval(() => {
      for (const name of ctx.delegations.delegating) ctx.rgdQueue.add(name);
    }, ctx.options.delegationRecheckMs),
    setInterval(() => {
      publishGauges(ctx, options.metrics);
    }, 1000),
  ];
  for (const timer of timers) timer.unref();
  return {
    stop() {
      stopping.abort();
      for (const timer of timers) clearInterval(timer);
    },
  };
}

/**
 * The server is back after an outage: what failed because of it is retried now, not after the
 * backoff it grew meanwhile (up to 1,000 s). The workers and the client's rate limit pace it.
 */
async function retryWhenServerBack(
  ctx: Pick<ControllerContext, "instanceQueue" | "rgdQueue" | "logger">,
  client: KubeClient,
  signal: AbortSignal,
): Promise<void> {
  for (;;) {
    await client.whenServerBack(signal);
    if (signal.aborted) return;
    const retried = { instances: ctx.instanceQueue.retryTransientNow(), rgds: ctx.rgdQueue.retryTransientNow() };
    ctx.logger.info(retried, "API server back: reconciles that failed because of it are retried now");
  }
}

function publishGauges(
  ctx: Pick<ControllerContext, "instanceQueue" | "rgdQueue" | "informers">,
  metrics: ControllerMetrics | undefined,
): void {
  if (metrics === undefined) return;
  metrics.queueDepth.set({ queue: "rgd" }, ctx.rgdQueue.length);
  metrics.queueDepth.set({ queue: "instance" }, ctx.instanceQueue.length);
  // Kinds no longer watched disappear from the gauge instead of keeping their last count.
  metrics.cachedObjects.reset();
  for (const c of cachedObjects(ctx.informers))
    metrics.cachedObjects.set({ api_version: c.apiVersion, kind: c.kind }, c.objects);
}

/** Objects held in informer caches now, per kind (all selections of a kind added up). */
function cachedObjects(
  informers: ControllerContext["informers"],
): { apiVersion: string; kind: string; objects: number }[] {
  const byKind = new Map<string, { apiVersion: string; kind: string; objects: number }>();
  for (const { options: o, size } of informers.cached()) {
    const key = `${o.apiVersion}/${o.kind}`;
    const entry = byKind.get(key) ?? { apiVersion: o.apiVersion, kind: o.kind, objects: 0 };
    entry.objects += size;
    byKind.set(key, entry);
  }
  return [...byKind.values()];
}
