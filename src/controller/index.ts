// controller: turns RGDs into live APIs and reconciles their instances — the only layer that
// keeps time and talks to a cluster (through kube). Logic about graphs lives in graph/runtime.
export { WorkQueue, type WorkQueueOptions } from "./work-queue.js";
export { TerminalError, isTerminal, startReconcileLoop, type ReconcileLoop, type ReconcileLoopOptions, type ReconcileOutcome, type ReconcileResult } from "./reconcile-loop.js";
export { startController, type RunningController, type StartControllerOptions } from "./controller.js";
export type { ControllerOptions, InstanceEvaluatedEvent } from "./controller-context.js";
export { loadBuiltinSchemas } from "./schema-bundle.js";
export { startLeaderElection, type LeaderElection, type LeaderElectionOptions } from "./leader-election.js";
export { validateLeaseTiming, type LeaseTiming } from "./lease-record.js";
export { leaseApiOf, memberLeaseName, shardLeaseName, startShardCoordinator, type LeaseApi, type ShardCoordinator, type ShardCoordinatorOptions, type ShardTicket } from "./shard-coordinator.js";
export { assignShards, shardOf } from "./shard-assignment.js";
export type { ControllerSharding, InstanceShards } from "./sharded-work.js";
export { warmStandby, type StandbyElection } from "./warm-standby.js";
export { startRgdLeadership, type RgdLeadership, type RunningRgdLeadership } from "./rgd-leadership.js";
