/**
 * With `--shards N` a replica caches only the instances (and their children) of the shards it
 * holds, selected server-side by the `kro.run/shard` label (coordination/shard-scope.ts), so N
 * replicas together hold about one replica's worth of objects.
 *
 * - The held set changes (acquire, release, loss): the instance and child informers are listed
 *   afresh with the new selector, one re-selection at a time; the old caches are read until the
 *   new ones are in. Only then are the newly held shards' instances queued — a takeover's first
 *   reconcile sees its children (never "missing", so never re-created or wrongly adopted).
 * - Every new tenure queues every instance of its shard, also when the held set looks unchanged
 *   (a tenure that lapsed and was taken again within one round, or a restart that finds its own
 *   name on the Lease): a reconcile refused while the shard's fence was closed is dropped by
 *   admission, and this is the only place it is ever retried.
 * - A label naming a held shard that is not the instance's own (a tenant's edit, or a different
 *   shard count before) is corrected by the holder of the shard it names — the only replica
 *   that sees it — with one preconditioned PATCH through that shard's fence. The true holder then
 *   sees it arrive and reconciles it. The label never decides who reconciles: admission does
 *   (sharded-work.ts), by the key's hash, so two replicas never reconcile one instance.
 */
import { LABELS } from "../api/index.js";
import { isConflict, isNotFound, type KubeObject } from "../kube/index.js";
import { systemClock, type Clock, type Timer } from "./clock/index.js";
import { ShardScope } from "./coordination/index.js";
import type { CacheScoping, ControllerContext } from "./context/index.js";
import { instanceKeyOf } from "./context/index.js";
import { rescopeInstances } from "./rgd/index.js";
import type { InstanceShards } from "./sharded-work.js";

/** Acquisitions in one coordination round arrive a few ms apart: one re-selection for all of them. */
const SETTLE_MS = 25;

export class ShardedCaches implements CacheScoping {
  readonly scope: ShardScope;
  /** Acquired shards whose instances are queued once a selection including them is listed. */
  private readonly acquired = new Set<number>();
  private running: Promise<void> | undefined;
  private again = false;
  private timer: Timer | undefined;
  /** Keys whose label correction is in flight (one PATCH each, not one per event). */
  private readonly correcting = new Set<string>();
  private stopped = false;
  /** A re-selection failed: the next one lists again even if the held set is the same. */
  private stale = false;

  constructor(
    private readonly ctx: () => ControllerContext,
    private readonly shards: InstanceShards,
    private readonly clock: Clock = systemClock,
  ) {
    this.scope = new ShardScope(shards.shardCount);
    this.scope.set(shards.held());
  }

  /** Subscribes to the coordinator (call once the context exists). */
  start(): void {
    this.shards.onAcquired((shard) => {
      this.acquired.add(shard);
      this.schedule();
    });
    this.shards.onHeldChanged(() => {
      this.schedule();
    });
    // Held shards may have changed since the scope was built: a no-op re-selection if not.
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** Resolves when no re-selection runs or waits (tests, diagnostics). */
  async settled(): Promise<void> {
    while (this.running !== undefined || this.timer !== undefined) await (this.running ?? this.clock.sleep(SETTLE_MS));
  }

  seen(rgdName: string, object: KubeObject): void {
    const value = object.metadata?.labels?.[LABELS.shard];
    const key = instanceKeyOf(rgdName, object);
    const shard = this.scope.shardOf(key);
    if (value === String(shard)) return;
    // Ours but mislabelled (none yet, garbage, another shard of ours): its reconcile's metadata
    // PATCH puts the label right (a label edit alone queues nothing otherwise).
    if (this.scope.holds(shard)) {
      if (object.metadata?.deletionTimestamp === undefined) this.ctx().instanceQueue.add(key);
      return;
    }
    const labelled = this.scope.parse(value);
    if (labelled === undefined || !this.scope.holds(labelled) || this.correcting.has(key)) return;
    const fence = this.shards.tenureFence(labelled);
    if (fence === undefined) return;
    this.correcting.add(key);
    const ctx = this.ctx();
    const ref = {
      apiVersion: object.apiVersion ?? "",
      kind: object.kind ?? "",
      namespace: object.metadata?.namespace,
      name: object.metadata?.name ?? "",
    };
    ctx.logger.info({ key, labelled, shard }, "correcting a wrong shard label");
    void ctx.client
      .withFence(fence)
      .patch(ref, {
        metadata: { resourceVersion: object.metadata?.resourceVersion, labels: { [LABELS.shard]: String(shard) } },
      })
      .catch((error: unknown) => {
        // A newer write is in the cache's next event, which brings us back here if still wrong.
        if (!isConflict(error) && !isNotFound(error))
          ctx.logger.warn(
            { key, err: error instanceof Error ? error.message : String(error) },
            "could not correct a shard label",
          );
      })
      .finally(() => {
        this.correcting.delete(key);
      });
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.timer?.cancel();
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.running = this.refill().finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
    }, SETTLE_MS);
  }

  private async refill(): Promise<void> {
    const ctx = this.ctx();
    const changed = this.scope.set(this.shards.held()) || this.stale;
    this.stale = false;
    const acquired = [...this.acquired];
    try {
      if (changed) {
        const started = this.clock.now();
        await Promise.all([rescopeInstances(ctx), ctx.watches.rescope()]);
        ctx.logger.info(
          { held: this.scope.held, ms: Math.round(this.clock.now() - started) },
          "caches re-selected for the held shards",
        );
      }
    } catch (error) {
      // An informer that did not list in time: try again (the old caches are still read).
      ctx.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        "could not re-select the caches; retrying",
      );
      this.stale = true;
      this.again = true;
      return;
    }
    for (const shard of acquired) this.acquired.delete(shard);
    const queue = new Set(acquired.filter((s) => this.scope.holds(s)));
    if (queue.size === 0) return;
    for (const [rgdName, lease] of ctx.instanceLeases) {
      for (const object of lease.informer.store.list()) {
        const key = instanceKeyOf(rgdName, object);
        if (queue.has(this.scope.shardOf(key))) ctx.instanceQueue.add(key);
      }
    }
  }
}
