// controller: turns RGDs into live APIs and reconciles their instances — the only layer that
// keeps time and talks to a cluster (through kube). Logic about graphs lives in graph/runtime.
export { RequestSignals, WorkQueue, type WorkQueueOptions } from "./loop/index.js";
export {
  TerminalError,
  isTerminal,
  startReconcileLoop,
  type ReconcileLoop,
  type ReconcileLoopOptions,
  type ReconcileOutcome,
  type ReconcileResult,
} from "./loop/index.js";
export { startController, type RunningController, type StartControllerOptions } from "./controller.js";
export type { ControllerOptions, InstanceEvaluatedEvent } from "./context/index.js";
export {
  CoordinationNamespaceError,
  ensureCoordinationNamespace,
  type CoordinationNamespaceOutcome,
} from "./coordination/index.js";
export { startLeaderElection, type LeaderElection, type LeaderElectionOptions } from "./coordination/index.js";
export { validateLeaseTiming, type LeaseTiming } from "./coordination/index.js";
export {
  leaseApiOf,
  memberLeaseName,
  shardLeaseName,
  startShardCoordinator,
  type LeaseApi,
  type ShardCoordinator,
  type ShardCoordinatorOptions,
  type ShardTicket,
} from "./coordination/index.js";
export { assignShards, shardOf } from "./coordination/index.js";
export type { ControllerSharding, InstanceShards } from "./sharded-work.js";
export { warmStandby, type StandbyElection } from "./warm-standby.js";
// The crash-loop guard's evidence: Node's fatal-error report, armed by `kro controller` at start.
export {
  armCrashReports,
  DEFAULT_CRASH_REPORT_DIR,
  defaultRenderThreads,
  fitThreadMemory,
  type ThreadMemory,
  type TestCrash,
} from "./isolation/index.js";
export { startRgdLeadership, type RgdLeadership, type RunningRgdLeadership } from "./coordination/index.js";
// `kro diff`: the controller's own decisions, pure, to preview an RGD or instance change.
// `kro import helm --release`: a chart rendered against the cluster as a reconcile renders it.
export { HelmClusterCache, withHelmCluster } from "./helm/index.js";
export { MAX_SCOPE_PASSES } from "./instance/index.js";
export {
  adoptionPolicy,
  decideRemoval,
  describeIdentity,
  InventoryFormatError,
  isUidGuardRefusal,
  judgeExisting,
  planApplies,
  readInventory,
  validatedRemovalContext,
  withUid,
} from "./instance/index.js";
export type {
  AdoptionPolicy,
  ApplyStep,
  InstanceIdentity,
  Inventory,
  OwnedChild,
  RemovalAction,
} from "./instance/index.js";
export { crdRef, crdUpdateBody, judgeCrdUpdate, type CrdDecision, type CrdOwner } from "./crds/index.js";
export { startControllerUi, type ControllerUi, type ControllerUiOptions } from "./ui/index.js";
export {
  CLUSTER_NAME_LABELS,
  KUBECONFIG_KEYS,
  registeredClusterClients,
  USUAL_CLUSTER_NAMESPACE,
  type RegisteredClusterClients,
} from "./clusters/index.js";
export { previewKey, previewWaves, type WavePreview } from "./rollout/index.js";
