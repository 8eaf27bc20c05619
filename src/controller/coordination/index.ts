/**
 * coordination: which replica may write — leader election, shard Leases and their assignment,
 * per-RGD leadership, and the write fences they hand out. Never reconciles anything itself and
 * never imports the reconcilers.
 */
export {
  CoordinationNamespaceError,
  ensureCoordinationNamespace,
  type CoordinationNamespaceOutcome,
} from "./coordination-namespace.js";
export { startLeaderElection, type LeaderElection, type LeaderElectionOptions } from "./leader-election.js";
export { validateLeaseTiming, type LeaseTiming } from "./lease-record.js";
export { startRgdLeadership, type RgdLeadership, type RunningRgdLeadership } from "./rgd-leadership.js";
export { assignShards, shardOf } from "./shard-assignment.js";
export {
  leaseApiOf,
  memberLeaseName,
  shardLeaseName,
  startShardCoordinator,
  type LeaseApi,
  type ShardCoordinator,
  type ShardCoordinatorOptions,
  type ShardTicket,
} from "./shard-coordinator.js";
export { ShardScope, withShardSelector } from "./shard-scope.js";
