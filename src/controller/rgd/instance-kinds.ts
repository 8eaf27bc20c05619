/**
 * Starting and stopping the reconciliation of one instance kind. Serving a new graph re-enqueues
 * every existing instance so an RGD update rolls out at once. Instance updates that leave
 * metadata.generation alone (labels, status, our own inventory annotation) are ignored, except
 * deletion and the suspend annotation, as in kro.
 */
import { ANNOTATIONS, GRAPH_REVISION_STATUS } from "../../api/index.js";
import { relistDifference, type InformerLease, type KubeObject } from "../../kube/index.js";
import { withShardSelector } from "../coordination/index.js";
import type { ControllerContext } from "../context/index.js";
import { instanceKeyOf, type ServedGraph } from "../context/index.js";
import { registerConversion } from "../conversion/index.js";

export async function startServing(ctx: ControllerContext, entry: ServedGraph): Promise<void> {
  const previous = ctx.served.get(entry.rgdName);
  const sameKind =
    previous !== undefined &&
    previous.instance.apiVersion === entry.instance.apiVersion &&
    previous.instance.kind === entry.instance.kind;
  // Reading instances at the hub may need conversion: this replica serves the webhook too.
  if (entry.graph.dialect === "cel" && entry.graph.versions !== undefined) {
    registerConversion(ctx.conversion, entry.graph);
    await ctx.conversion.start();
  }
  ctx.served.set(entry);
  ctx.watches.retain(entry.rgdName, entry.graph);
  // A kind served now is no longer filtered by shard where it is some graph's child (controller.ts).
  if (ctx.cacheScoping !== undefined && !sameKind) await ctx.watches.rescope();
  if (!sameKind) {
    await ctx.instanceLeases.get(entry.rgdName)?.release();
    const lease = watchInstances(ctx, entry, { initialListEnqueues: true });
    ctx.instanceLeases.set(entry.rgdName, lease);
    await lease.informer.waitForSync({ timeoutMs: 30_000 });
  }
  enqueueInstances(ctx, entry.rgdName);
}

let variants = 0;

/**
 * The informer of one served instance kind, with its handlers. Full objects (instances are
 * small): a reconcile reads its instance from this cache, which is fresh when the event that
 * enqueued it is processed — one GET fewer per reconcile. With sharding it selects only the held
 * shards and strays (ShardScope); a re-selection lists afresh without queueing what it lists
 * (`initialListEnqueues: false`): the shards newly held are queued once it is in.
 */
function watchInstances(
  ctx: ControllerContext,
  entry: ServedGraph,
  options: { initialListEnqueues: boolean },
): InformerLease<KubeObject> {
  const labelSelector = withShardSelector(undefined, ctx.cacheScoping?.scope);
  // Its own informer (a variant): two selections of one kind live side by side during a re-selection.
  const lease = ctx.informers.acquire({
    apiVersion: entry.instance.apiVersion,
    kind: entry.instance.kind,
    variant: `instances-${++variants}`,
    ...(labelSelector === undefined ? {} : { labelSelector }),
  });
  const enqueue = (object: KubeObject) => {
    ctx.instanceQueue.add(instanceKeyOf(entry.rgdName, object));
  };
  // New work goes first (WorkQueue's fresh lane): an instance created, or a new generation —
  // not the initial list, which is a resync of what is already there.
  const enqueueFresh = (object: KubeObject) => {
    ctx.instanceQueue.addFresh(instanceKeyOf(entry.rgdName, object));
  };
  // A new write: judged (admitted while the author policy was not in force?) before it is
  // acted on, once the policy watch has caught up with it (instance/unchecked-admission.ts).
  const screen = (object: KubeObject) => {
    if (lease.informer.hasSynced && ctx.authorPolicies.guarded(entry.rgdName))
      ctx.authorPolicies.seen(
        instanceKeyOf(entry.rgdName, object),
        object.metadata?.resourceVersion,
        ctx.policySync.ticket(),
      );
  };
  lease.informer.addHandlers({
    onAdd: (object) => {
      ctx.cacheScoping?.seen(entry.rgdName, object);
      screen(object);
      if (lease.informer.hasSynced) enqueueFresh(object);
      else if (options.initialListEnqueues) enqueue(object);
    },
    onUpdate: (old, next) => {
      ctx.cacheScoping?.seen(entry.rgdName, next);
      // A rollout waits on its instances' health: a judged instance wakes the RGD's next round
      // (coalesced, at most one a second) rather than leaving it to the rollout's poll.
      if (rolloutJudgementChanged(old, next)) ctx.rgdQueue.addAfter(entry.rgdName, ROLLOUT_WAKE_MS);
      if (rendersDifferently(old, next)) screen(next);
      if (old.metadata?.generation !== next.metadata?.generation) enqueueFresh(next);
      // Not the echo of our own metadata write (record.ts, ensureManaged): that pass goes on by itself.
      else if (needsReconcile(old, next))
        ctx.ownWrites.observe(next, () => {
          enqueue(next);
        });
    },
    // With sharding an instance also leaves when its label moves it to another replica's shard.
    onDelete: (object) => {
      ctx.instanceMemory.forget(instanceKeyOf(entry.rgdName, object), object.metadata?.uid);
    },
  });
  return lease;
}

/**
 * The held shards changed: every instance informer is replaced by one with the new selection.
 * The old one is read (and delivers events) until the new one has listed, so no reconcile sees
 * a cache missing what it held before; what the new list shows differently from the old cache is
 * queued (an event in flight to the old one is never delivered). Callers run one re-selection at
 * a time (sharded-caches.ts).
 */
export async function rescopeInstances(ctx: ControllerContext): Promise<void> {
  await Promise.all(
    [...ctx.instanceLeases].map(async ([rgdName, old]) => {
      const entry = ctx.served.get(rgdName);
      if (entry === undefined) return;
      const next = watchInstances(ctx, entry, { initialListEnqueues: false });
      try {
        await next.informer.waitForSync({ timeoutMs: 30_000 });
      } catch (error) {
        await next.release();
        throw error;
      }
      // Another kind served meanwhile, or none: that informer was started with the current selection.
      if (ctx.instanceLeases.get(rgdName) !== old) {
        await next.release();
        return;
      }
      ctx.instanceLeases.set(rgdName, next);
      // An event still on its way to the old cache dies with it: what the new list shows
      // differently is queued here (a spec change made during the re-selection, or a deletion).
      const { changed, gone } = relistDifference(old.informer.store, next.informer.store);
      for (const object of changed) ctx.instanceQueue.add(instanceKeyOf(rgdName, object));
      for (const object of gone) {
        const key = instanceKeyOf(rgdName, object);
        if (ctx.cacheScoping?.scope.holds(ctx.cacheScoping.scope.shardOf(key)) !== false) ctx.instanceQueue.add(key);
      }
      await old.release();
    }),
  );
}

/** Queues every known instance of an RGD's kind (a new graph, or a periodic resync). */
export function enqueueInstances(ctx: ControllerContext, rgdName: string): void {
  for (const object of ctx.instanceLeases.get(rgdName)?.informer.store.list() ?? [])
    ctx.instanceQueue.add(instanceKeyOf(rgdName, object));
}

export async function stopServing(ctx: ControllerContext, rgdName: string): Promise<void> {
  ctx.served.delete(rgdName);
  ctx.authorPolicies.forget(rgdName);
  ctx.delegations.forget(rgdName);
  // Child kinds no served graph needs any more stop being watched (after running reconciles end).
  ctx.watches.retain(rgdName, undefined);
  const lease = ctx.instanceLeases.get(rgdName);
  ctx.instanceLeases.delete(rgdName);
  // A stopped informer reports no deletions: its instances are forgotten here.
  for (const object of lease?.informer.store.list() ?? [])
    ctx.instanceMemory.forget(instanceKeyOf(rgdName, object), object.metadata?.uid);
  await lease?.release();
}

/** A write the author policy judges (spec, or an annotation it reads); the controller's own writes change neither. */
function rendersDifferently(old: KubeObject, next: KubeObject): boolean {
  const watched = (o: KubeObject) => [
    o.metadata?.annotations?.[ANNOTATIONS.adopt],
    o.metadata?.annotations?.[ANNOTATIONS.uncheckedAdmission],
  ];
  return (
    old.metadata?.generation !== next.metadata?.generation ||
    JSON.stringify(watched(old)) !== JSON.stringify(watched(next))
  );
}

export function needsReconcile(old: KubeObject, next: KubeObject): boolean {
  if (old.metadata?.generation !== next.metadata?.generation) return true;
  // Removing the unchecked-admission stamp is how a user asks for the instance to be acted on.
  if (
    old.metadata?.annotations?.[ANNOTATIONS.uncheckedAdmission] !==
    next.metadata?.annotations?.[ANNOTATIONS.uncheckedAdmission]
  )
    return true;
  if ((old.metadata?.deletionTimestamp === undefined) !== (next.metadata?.deletionTimestamp === undefined)) return true;
  const suspended = (o: KubeObject) => o.metadata?.annotations?.[ANNOTATIONS.reconcile]?.toLowerCase();
  if (suspended(old) !== suspended(next)) return true;
  // A rollout moved it: its next pass runs the revision it was assigned. The move's own queueing
  // can read the cache before it holds the move, and then runs the old revision again.
  if (revisionRecordOf(old).assigned !== revisionRecordOf(next).assigned) return true;
  // Someone removed our finalizer or labels: put them back.
  return (old.metadata?.finalizers?.length ?? 0) !== (next.metadata?.finalizers?.length ?? 0);
}

/** Between an instance turning healthy (or failing) and the rollout's next round. */
const ROLLOUT_WAKE_MS = 1_000;

/** The instance's revision record says something new about its health, or its pin changed (only instances under a rollout carry a record). */
export function rolloutJudgementChanged(old: KubeObject, next: KubeObject): boolean {
  const [a, b] = [revisionRecordOf(old), revisionRecordOf(next)];
  const pinOf = (o: KubeObject) => o.metadata?.annotations?.[ANNOTATIONS.pinGraphRevision];
  // A pin (added, changed, removed) is the planner's to judge; only under a rollout (a record).
  const pinChanged = pinOf(old) !== pinOf(next) && (b.evaluated !== undefined || b.assigned !== undefined);
  return (
    pinChanged ||
    a.evaluated !== b.evaluated ||
    a.healthyAt !== b.healthyAt ||
    (a.unhealthy === undefined) !== (b.unhealthy === undefined)
  );
}

type RevisionRecord = Partial<Readonly<Record<"assigned" | "evaluated" | "healthyAt" | "unhealthy", unknown>>>;

/** status.graphRevision as written under a rollout (empty without one). */
function revisionRecordOf(o: KubeObject): RevisionRecord {
  const record = (o.status as Record<string, unknown> | undefined)?.[GRAPH_REVISION_STATUS.field];
  return record ?? {};
}
