/**
 * startController: the product's main job. Watches ResourceGraphDefinitions, turns each into a
 * served kind, and reconciles every instance of every kind through one shared work queue.
 * Optional leader election gates all writes; health and metrics are served by the caller.
 */
import { KRO_API_VERSION, LABELS, RGD, rgdCustomResourceDefinition } from "../api/index.js";
import { compileRgd, type SchemaResolver } from "../graph/index.js";
import { createKroCelEnvironment } from "../expr/index.js";
import { InformerManager, type InformerLease, type KubeClient, type KubeObject } from "../kube/index.js";
import type { ControllerMetrics, Logger } from "../observability/index.js";
import { ApplyMemo } from "./apply-memo.js";
import { CRD_TYPE, ensureRgdCrd } from "./crd-installer.js";
import { withClusterKinds } from "./cluster-kinds.js";
import { ChildWatches } from "./child-watches.js";
import type { ControllerContext, ControllerOptions, InstanceEvaluatedEvent } from "./controller-context.js";
import { enqueueInstances } from "./instance-kinds.js";
import { reconcileInstance } from "./instance-reconciler.js";
import { startReconcileLoop, type ReconcileOutcome } from "./reconcile-loop.js";
import { reconcileRgd } from "./rgd-reconciler.js";
import { instanceKey, parseInstanceKey, ServedGraphs } from "./served-graphs.js";
import { WorkQueue } from "./work-queue.js";

export interface StartControllerOptions extends ControllerOptions {
  readonly client: KubeClient;
  /** A client of its own for Events, so they never take request budget from reconciles (default: client). */
  readonly eventClient?: KubeClient;
  readonly logger: Logger;
  readonly metrics?: ControllerMetrics;
  readonly kroVersion: string;
  /** Schemas of child kinds for type checking (built-ins of the cluster's version). */
  readonly resolver?: SchemaResolver;
  /** Only reconcile RGDs matching this label selector (shards controllers; tests share a cluster). */
  readonly rgdSelector?: string;
  /** Every instance is reconciled again this often even without events (default 10 h, as kro). */
  readonly resyncPeriodMs?: number;
  /** Install or upgrade the ResourceGraphDefinition CRD at startup (default true). */
  readonly installRgdCrd?: boolean;
  /** Called after each instance reconcile with the runtime's per-node evaluation (live progress). */
  readonly onInstanceEvaluated?: (event: InstanceEvaluatedEvent) => void;
}

export interface RunningController {
  /** Resolves once the RGD and CRD informers have synced. */
  readonly ready: Promise<void>;
  readonly served: ServedGraphs;
  /** Re-enqueues every instance of every served kind (a full resync, as after a restart). */
  resync(): void;
  stop(): Promise<void>;
}


export function startController(options: StartControllerOptions): RunningController {
  const { client, logger } = options;
  const informers = new InformerManager(client);
  const served = new ServedGraphs();
  const rgdQueue = new WorkQueue({ baseDelayMs: 200, maxDelayMs: 60_000 });
  const instanceQueue = new WorkQueue({ baseDelayMs: 200, maxDelayMs: 1_000_000 });
  const env = createKroCelEnvironment({ enableRuntime: true });
  const ownerOf = (labels: Readonly<Record<string, string>>) => {
    const group = labels[LABELS.instanceGroup];
    const kind = labels[LABELS.instanceKind];
    const name = labels[LABELS.instanceName];
    if (group === undefined || kind === undefined || name === undefined) return undefined;
    const entry = served.forKind(group, kind);
    return entry === undefined ? undefined : instanceKey(entry.rgdName, labels[LABELS.instanceNamespace], name);
  };
  const ctx: ControllerContext = {
    client,
    eventClient: options.eventClient ?? client,
    informers,
    logger,
    kroVersion: options.kroVersion,
    served,
    watches: new ChildWatches(client, informers, ownerOf, (key) => { instanceQueue.add(key); }),
    rgdQueue,
    instanceQueue,
    applyMemo: new ApplyMemo(),
    instanceLeases: new Map(),
    deletionWaits: new Map(),
    options: {
      workers: options.workers ?? 4,
      requeueIntervalMs: options.requeueIntervalMs ?? 3000,
      allowCrdDeletion: options.allowCrdDeletion ?? false,
      addStatusToUserCrds: options.addStatusToUserCrds ?? true,
      maxCollectionSize: options.maxCollectionSize ?? 1000,
    },
    compile: async (rgd) => {
      const resolver = await withClusterKinds(client, rgd, options.resolver);
      // With discovery at hand an unknown child kind is an error, as in kro (no REST mapping).
      return compileRgd(rgd, { env, unknownKinds: "error", ...(resolver === undefined ? {} : { resolver }) });
    },
    now: () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    ...(options.onInstanceEvaluated === undefined ? {} : { onInstanceEvaluated: options.onInstanceEvaluated }),
  };

  const record = (kind: string) => (key: string, outcome: ReconcileOutcome, durationMs: number) => {
    options.metrics?.reconcileTotal.inc({ kind, result: outcome.kind });
    options.metrics?.reconcileDuration.observe({ kind }, durationMs / 1000);
    options.metrics?.workDuration.observe({ queue: kind }, durationMs / 1000);
    if (outcome.kind !== "success") logger.warn({ kind, key, err: errorText(outcome.error), ...(outcome.kind === "error" ? { retryInMs: outcome.retryInMs } : {}) }, "reconcile failed");
    else logger.debug({ kind, key, durationMs: Math.round(durationMs) }, "reconciled");
  };
  // The RGD CRD first (an empty cluster works), then the informers that feed the RGD queue.
  async function watchRgds(): Promise<void> {
    if (options.installRgdCrd !== false) await ensureRgdCrd(client, rgdCustomResourceDefinition() as unknown as KubeObject);
    const rgdLease: InformerLease<KubeObject> = informers.acquire({ apiVersion: KRO_API_VERSION, kind: RGD.kind, ...(options.rgdSelector === undefined ? {} : { labelSelector: options.rgdSelector }) });
    rgdLease.informer.addHandlers({
      onAdd: (o) => { rgdQueue.add(o.metadata?.name ?? ""); },
      onUpdate: (old, next) => { if (rgdChanged(old, next)) rgdQueue.add(next.metadata?.name ?? ""); },
      onDelete: (o) => { rgdQueue.add(o.metadata?.name ?? ""); },
    });
    const crdLease: InformerLease<KubeObject> = informers.acquire({ ...CRD_TYPE, metadataOnly: true });
    crdLease.informer.addHandlers({
      // A CRD we generated, edited or deleted by hand, is restored by its RGD's next reconcile;
      // a user CRD appearing lets a template-dialect RGD waiting for it become Active.
      onAdd: (crd) => { enqueueRgdsFor(crd); },
      onUpdate: (_old, crd) => { enqueueRgdsFor(crd); },
      onDelete: (crd) => { enqueueRgdsFor(crd); },
    });
    function enqueueRgdsFor(crd: KubeObject): void {
      // Only RGDs this controller watches (a selector may shard them between controllers).
      const owner = crd.metadata?.labels?.[LABELS.rgdName];
      if (owner !== undefined && rgdLease.informer.store.getByName(undefined, owner) !== undefined) rgdQueue.add(owner);
      const [, ...groupParts] = (crd.metadata?.name ?? "").split(".");
      const group = groupParts.join(".");
      for (const rgd of rgdLease.informer.store.list()) {
        const resourceKind = (rgd.spec as { resourceKind?: { group?: string } } | undefined)?.resourceKind;
        if (resourceKind?.group === group) rgdQueue.add(rgd.metadata?.name ?? "");
      }
    }
    await Promise.all([rgdLease.informer.waitForSync({ timeoutMs: 60_000 }), crdLease.informer.waitForSync({ timeoutMs: 60_000 })]);
  }

  const ready = watchRgds();
  const rgdLoop = startReconcileLoop({ queue: rgdQueue, workers: 2, reconcile: (name) => reconcileRgd(ctx, name), onOutcome: record("ResourceGraphDefinition") });
  const instanceLoop = startReconcileLoop({
    queue: instanceQueue,
    workers: ctx.options.workers,
    reconcile: async (key) => {
      const { rgdName, namespace, name } = parseInstanceKey(key);
      const entry = served.get(rgdName);
      // Not served (yet, or any more): the RGD's next successful reconcile re-enqueues every instance.
      if (entry === undefined) return {};
      const log = logger.child({ kind: entry.instance.kind, namespace, name, reconcileId: (++reconcileCount).toString(36) });
      return reconcileInstance(ctx, entry, namespace, name, log);
    },
    onOutcome: record("instance"),
  });
  let reconcileCount = 0;
  // Level-based safety net, as controller-runtime's SyncPeriod: every instance is looked at again.
  const resyncTimer = setInterval(() => { resync(); }, options.resyncPeriodMs ?? 36_000_000);
  resyncTimer.unref();
  const depthTimer = setInterval(() => {
    options.metrics?.queueDepth.set({ queue: "rgd" }, rgdQueue.length);
    options.metrics?.queueDepth.set({ queue: "instance" }, instanceQueue.length);
  }, 1000);
  depthTimer.unref();

  function resync(): void {
    for (const entry of served.all()) enqueueInstances(ctx, entry.rgdName);
  }

  return {
    ready,
    served,
    resync,
    async stop() {
      clearInterval(depthTimer);
      clearInterval(resyncTimer);
      rgdQueue.shutDown();
      instanceQueue.shutDown();
      await Promise.all([rgdLoop.stopped, instanceLoop.stopped]);
      await ctx.watches.stop();
      informers.stopAll();
    },
  };
}

function rgdChanged(old: KubeObject, next: KubeObject): boolean {
  const annotation = (o: KubeObject) => o.metadata?.annotations?.["kro.run/allow-breaking-changes"];
  return old.metadata?.generation !== next.metadata?.generation
    || (old.metadata?.deletionTimestamp === undefined) !== (next.metadata?.deletionTimestamp === undefined)
    || annotation(old) !== annotation(next);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
