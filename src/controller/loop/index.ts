/**
 * loop: the level-based work queue and the reconcile loop over it (keys, never events; backoff,
 * requeueAfter, terminal errors). Knows nothing of RGDs, instances or the cluster.
 */
export {
  TerminalError,
  TransientError,
  isTerminal,
  startReconcileLoop,
  type ReconcileLoop,
  type ReconcileLoopOptions,
  type ReconcileOutcome,
  type ReconcileResult,
} from "./reconcile-loop.js";
export { FRESH_RUN, WorkQueue, type WorkQueueOptions } from "./work-queue.js";
export { ConcurrencySlots } from "./concurrency-slots.js";
export { RequestSignals, type RequestCounts } from "./request-signals.js";
export {
  initialConcurrency,
  isOverloadAnswer,
  stepConcurrency,
  type ConcurrencyBounds,
  type ConcurrencyReason,
  type ConcurrencyState,
  type ConcurrencyWindow,
} from "./concurrency-limit.js";
export {
  startAdaptiveConcurrency,
  type AdaptiveConcurrency,
  type AdaptiveConcurrencyOptions,
} from "./adaptive-concurrency.js";
