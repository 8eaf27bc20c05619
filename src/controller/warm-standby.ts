/**
 * Warm standby for plain leader election (no --shards), as controller-runtime's manager runs
 * it: every replica starts its caches at once — RGD and CRD informers, each RGD's graph compiled
 * and served, its instance and child kinds watched — and only the leader reconciles and writes.
 * A failover then costs the Lease's expiry plus one reconcile, not a whole controller start.
 *
 * It is the sharded machinery (sharded-work.ts) with one shard held exactly while leading: a
 * standby follows RGDs read-only (rgd-follower.ts) and drops instance keys; on election the
 * controller goes over every RGD as the leader and queues every cached instance. Every write
 * still goes through the leader's fence, which is not held before election.
 */
import type { WriteFence } from "../kube/index.js";
import type { ControllerSharding } from "./sharded-work.js";

/** What the standby needs of a leader election (leader-election.ts). */
export interface StandbyElection {
  readonly acquired: Promise<void>;
  readonly isLeader: boolean;
  readonly fence: WriteFence;
}

export function warmStandby(election: StandbyElection): ControllerSharding {
  const onAcquired = (listener: () => void): void => {
    void election.acquired.then(listener);
  };
  return {
    leader: {
      get isLeader() {
        return election.isLeader;
      },
      fence: election.fence,
      onAcquired,
    },
    // A standby's caches stay full (warm): nothing to select, one shard held while leading.
    scopeCaches: false,
    shards: {
      shardCount: 1,
      held: () => (election.isLeader ? [0] : []),
      onHeldChanged: () => undefined,
      tenureFence: () => (election.isLeader ? election.fence : undefined),
      shardOf: () => 0,
      admit: () => (election.isLeader ? { shard: 0, fence: election.fence, leave: () => undefined } : undefined),
      onAcquired: (listener) => {
        onAcquired(() => {
          listener(0);
        });
      },
    },
  };
}
