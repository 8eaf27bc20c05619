/**
 * startController: the product's main job. Watches ResourceGraphDefinitions, turns each into a
 * served kind, and reconciles every instance of every kind through one shared work queue.
 * Optional leader election gates all writes; health and metrics are served by the caller.
 *
 * Wiring only: the parts are built in controller-context-factory.ts, the RGD watch is
 * rgd-watch.ts, one instance key's turn is instance-work.ts, the scheduled work is
 * periodic-work.ts, and what happens when (synced, leader, stop order) is the state machine of
 * controller-lifecycle.ts.
 */
import { isServerUnavailable, type InformerLease, type KubeObject } from "../kube/index.js";
import type { HealthReport } from "../observability/index.js";
import { enqueueInstances, reconcileRgd } from "./rgd/index.js";
import { startReconcileLoop } from "./loop/index.js";
import { shardedWork } from "./sharded-work.js";
import { systemClock } from "./clock/index.js";
import type { RunningController, StartControllerOptions } from "./controller-options.js";
import { buildControllerParts } from "./controller-context-factory.js";
import { watchRgds, type RgdWatch } from "./rgd-watch.js";
import { errorText, instanceWork, outcomeRecorder } from "./instance-work.js";
import { startPeriodicWork } from "./periodic-work.js";
import { instanceConcurrency } from "./instance-concurrency.js";
import {
  healthMatters,
  initialLifecycle,
  stepLifecycle,
  type LifecycleAction,
  type LifecycleEvent,
} from "./controller-lifecycle.js";

export type { RunningController, StartControllerOptions } from "./controller-options.js";

const RGD_WORKERS = 2;

export function startController(options: StartControllerOptions): RunningController {
  const clock = options.clock ?? systemClock;
  const { ctx, chartPool, evaluationPool, policyBarrier, cacheScoping, clusters } = buildControllerParts(
    options,
    clock,
  );
  const { logger, served, informers, rgdQueue, instanceQueue } = ctx;
  const stopping = new AbortController();
  let rgdWatch: RgdWatch | undefined;
  let lifecycle = initialLifecycle;
  const dispatch = (event: LifecycleEvent): void => {
    const step = stepLifecycle(lifecycle, event);
    lifecycle = step.state;
    for (const action of step.actions) void perform(action);
  };

  const ready = watchRgds(ctx, options, policyBarrier, clusters, stopping.signal).then(async (watch) => {
    rgdWatch = watch;
    await watch.synced;
  });
  ready.then(
    () => {
      dispatch({ type: "synced" });
    },
    (error: unknown) => {
      dispatch({ type: "sync-failed", error: errorText(error) });
    },
  );
  const sharded = options.sharding === undefined ? undefined : shardedWork(ctx, options.sharding);
  cacheScoping?.start();
  options.sharding?.leader.onAcquired(() => {
    dispatch({ type: "became-leader" });
  });
  ctx.conversion.onRotation(() => {
    dispatch({ type: "ca-rotated" });
  });

  const record = outcomeRecorder(logger, options.metrics);
  const rgdLoop = startReconcileLoop({
    queue: rgdQueue,
    workers: RGD_WORKERS,
    clock,
    isTransient: isServerUnavailable,
    reconcile: (name) => sharded?.rgd(name) ?? reconcileRgd(ctx, name),
    onOutcome: record("ResourceGraphDefinition"),
  });
  const reconcileKey = instanceWork(ctx);
  const concurrency = instanceConcurrency(
    { ...options, workers: ctx.options.workers },
    instanceQueue,
    clock,
    options.metrics,
  );
  const instanceLoop = startReconcileLoop({
    queue: instanceQueue,
    workers: concurrency.workers,
    ...(concurrency.slots === undefined ? {} : { slots: concurrency.slots }),
    clock,
    isTransient: isServerUnavailable,
    // With sharding, only while this replica holds the instance's shard, through its fence.
    reconcile: (key) => sharded?.instance(key, (c) => reconcileKey(c, key)) ?? reconcileKey(ctx, key),
    onOutcome: record("instance"),
  });
  const resync = (): void => {
    for (const entry of served.all()) enqueueInstances(ctx, entry.rgdName);
  };
  const periodic = startPeriodicWork(ctx, {
    resyncPeriodMs: options.resyncPeriodMs ?? 36_000_000,
    metrics: options.metrics,
    resyncInstances: resync,
  });

  async function perform(action: LifecycleAction): Promise<void> {
    switch (action.type) {
      case "resync-rgds":
        rgdWatch?.resync();
        return;
      case "report-start-failure":
        // Logged here too, so a caller that never awaits `ready` still sees why nothing happens.
        logger.error({ err: action.error }, "controller could not start watching ResourceGraphDefinitions");
        return;
      case "stop-timers":
        stopping.abort();
        cacheScoping?.stop();
        periodic.stop();
        return;
      case "shut-queues":
        rgdQueue.shutDown();
        instanceQueue.shutDown();
        concurrency.stop();
        return;
      case "await-workers":
        await Promise.all([rgdLoop.stopped, instanceLoop.stopped]);
        return;
      case "stop-watches":
        return ctx.watches.stop();
      case "stop-clusters":
        return clusters.stop();
      case "stop-migrations":
        return ctx.migrations.stop();
      case "stop-informers":
        informers.stopAll();
        return;
      case "stop-render-pool":
        await Promise.all([chartPool.stop(), evaluationPool.stop()]);
        return;
      case "close-webhook":
        // Last: conversions are answered for as long as anything here runs, and the requests the
        // webhook took are answered before it goes (the API server's next ones reach another replica).
        return ctx.conversion.close();
    }
  }

  function health(): HealthReport {
    if (!healthMatters(lifecycle)) return { ok: true, problems: [] };
    const problems: string[] = [];
    if (rgdLoop.alive < RGD_WORKERS) problems.push(`RGD workers: ${rgdLoop.alive} of ${RGD_WORKERS} running`);
    if (instanceLoop.alive < instanceLoop.workers)
      problems.push(`instance workers: ${instanceLoop.alive} of ${instanceLoop.workers} running`);
    const core: readonly InformerLease<KubeObject>[] = rgdWatch?.leases ?? [];
    for (const lease of core)
      if (lease.informer.stopped) problems.push(`informer ${lease.informer.options.kind} stopped`);
    return { ok: problems.length === 0, problems };
  }

  return {
    ready,
    served,
    resync,
    health,
    watching: () => informers.running(),
    cachedObjects: (apiVersion, kind) => informers.cachedObjects(apiVersion, kind),
    async stop() {
      // The stop steps run one after the other, in the machine's order.
      const step = stepLifecycle(lifecycle, { type: "stop" });
      lifecycle = step.state;
      for (const action of step.actions) await perform(action);
    },
  };
}
