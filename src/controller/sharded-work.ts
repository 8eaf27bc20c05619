/**
 * The controller's hook for instance sharding (shard-coordinator.ts): which reconciles run on
 * this replica, and through which fence their writes go.
 * - An instance is reconciled only while this replica holds its shard; its writes (children,
 *   record, status, Events) go through that tenure's fence, so they stop the moment the tenure
 *   ends. A key of a shard held elsewhere is dropped here: its holder reconciles it, and whoever
 *   acquires the shard next enqueues every instance of it (once its caches select the shard,
 *   sharded-caches.ts). The shard is the key's hash, never the kro.run/shard label.
 * - RGDs are reconciled in full (CRD, GraphRevision, policy, status) only by the leader, through
 *   the leader's fence; every other replica follows (rgd-follower.ts) to serve the same graphs.
 */
import type { WriteFence } from "../kube/index.js";
import type { ControllerContext } from "./context/index.js";
import type { ReconcileResult } from "./loop/index.js";
import { reconcileRgd } from "./rgd/index.js";
import { followRgd } from "./rgd/index.js";
import type { RgdLeadership } from "./coordination/index.js";
import { instanceKeyOf } from "./context/index.js";
import type { ShardTicket } from "./coordination/index.js";

/** What the controller needs of the shard coordinator. */
export interface InstanceShards {
  readonly shardCount: number;
  shardOf(key: string): number;
  admit(key: string): ShardTicket | undefined;
  onAcquired(listener: (shard: number) => void): void;
  /** Shards in a tenure now, and a call after each change: what this replica's caches select (sharded-caches.ts). */
  held(): number[];
  onHeldChanged(listener: () => void): void;
  /** The fence of the current tenure of `shard` (a wrong shard label is corrected through it). */
  tenureFence(shard: number): WriteFence | undefined;
}

export interface ControllerSharding {
  readonly shards: InstanceShards;
  readonly leader: RgdLeadership;
  /** Caches hold only the held shards (sharded-caches.ts); default true. Warm standby keeps them full. */
  readonly scopeCaches?: boolean;
}

export interface ShardedWork {
  instance(key: string, reconcile: (ctx: ControllerContext) => Promise<ReconcileResult>): Promise<ReconcileResult>;
  rgd(name: string): Promise<ReconcileResult>;
}

export function shardedWork(ctx: ControllerContext, sharding: ControllerSharding): ShardedWork {
  const fenced = (fence: WriteFence): ControllerContext => ({
    ...ctx,
    client: ctx.client.withFence(fence),
    eventClient: ctx.eventClient.withFence(fence),
  });
  // A tenure began: queue the shard's instances (another replica may have changed them since).
  // Scoped caches do that once they select the shard (sharded-caches.ts).
  sharding.shards.onAcquired((shard) => {
    // The last status we wrote is no proof of what is stored: another replica may have written since.
    ctx.instanceMemory.forgetWrittenStatuses();
    if (ctx.cacheScoping !== undefined) return;
    for (const [rgdName, lease] of ctx.instanceLeases) {
      for (const object of lease.informer.store.list()) {
        const key = instanceKeyOf(rgdName, object);
        if (sharding.shards.shardOf(key) === shard) ctx.instanceQueue.add(key);
      }
    }
  });
  return {
    async instance(key, reconcile) {
      const ticket = sharding.shards.admit(key);
      if (ticket === undefined) return {};
      try {
        return await reconcile(fenced(ticket.fence));
      } finally {
        ticket.leave();
      }
    },
    // The fence of the current tenure: a lost leadership closes it, a new one brings another.
    rgd: (name) =>
      sharding.leader.isLeader ? reconcileRgd(fenced(sharding.leader.fence), name) : followRgd(ctx, name),
  };
}
