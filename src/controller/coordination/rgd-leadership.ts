/**
 * RGD leadership for sharded replicas: leader election that runs again after a loss. Without
 * sharding a leader that loses its Lease exits (it was the only replica working); a sharded
 * replica keeps reconciling the instances of its shards, so losing the RGD Lease only ends that
 * tenure — its fence closes, RGD writes stop — and it becomes a candidate again with a new fence.
 */
import type { WriteFence } from "../../kube/index.js";
import { startLeaderElection, type LeaderElection, type LeaderElectionOptions } from "./leader-election.js";

export interface RgdLeadership {
  readonly isLeader: boolean;
  /** The current tenure's fence (a new one after each loss). */
  readonly fence: WriteFence;
  /** Called at every acquisition (the controller then goes over every RGD as the leader). */
  onAcquired(listener: () => void): void;
}

export interface RunningRgdLeadership extends RgdLeadership {
  /** Closes the fence and releases the Lease if held. */
  stop(): Promise<void>;
}

export function startRgdLeadership(options: Omit<LeaderElectionOptions, "fence">): RunningRgdLeadership {
  const listeners: (() => void)[] = [];
  let stopped = false;
  let current: LeaderElection;
  const campaign = (): void => {
    const election = startLeaderElection(options);
    current = election;
    void election.acquired.then(() => {
      if (!stopped && current === election) for (const listener of listeners) listener();
    });
    void election.lost.then(() => {
      if (!stopped && current === election) campaign();
    });
  };
  campaign();
  return {
    get isLeader() {
      return current.isLeader;
    },
    get fence() {
      return current.fence;
    },
    onAcquired(listener) {
      listeners.push(listener);
    },
    async stop() {
      stopped = true;
      await current.stop();
    },
  };
}
