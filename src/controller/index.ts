// controller: turns RGDs into live APIs and reconciles their instances — the only layer that
// keeps time and talks to a cluster (through kube). Logic about graphs lives in graph/runtime.
export { WorkQueue, type WorkQueueOptions } from "./loop/work-queue.js";
export { TerminalError, isTerminal, startReconcileLoop, type ReconcileLoop, type ReconcileLoopOptions, type ReconcileOutcome, type ReconcileResult } from "./loop/reconcile-loop.js";
export { startController, type RunningController, type StartControllerOptions } from "./controller.js";
export type { ControllerOptions, InstanceEvaluatedEvent } from "./context/controller-context.js";
export { loadBuiltinSchemas } from "./schema-bundle.js";
export { startLeaderElection, type LeaderElection, type LeaderElectionOptions } from "./coordination/leader-election.js";
export { validateLeaseTiming, type LeaseTiming } from "./coordination/lease-record.js";
export { leaseApiOf, memberLeaseName, shardLeaseName, startShardCoordinator, type LeaseApi, type ShardCoordinator, type ShardCoordinatorOptions, type ShardTicket } from "./coordination/shard-coordinator.js";
export { assignShards, shardOf } from "./coordination/shard-assignment.js";
export type { ControllerSharding, InstanceShards } from "./sharded-work.js";
export { warmStandby, type StandbyElection } from "./warm-standby.js";
export { startRgdLeadership, type RgdLeadership, type RunningRgdLeadership } from "./coordination/rgd-leadership.js";
