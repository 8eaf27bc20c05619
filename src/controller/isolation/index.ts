/**
 * Isolation: what of an instance's evaluation runs where the controller can stop and cap it.
 * Charts (spec.helm) render in a pool of worker threads with heap limits and a deadline
 * (chart-render-pool.ts, chart-worker.ts); their answers are kept by what they read
 * (chart-renders.ts). An instance pass runs on the main thread for a short slice and, when it
 * needs more, in a pool of evaluation threads taken in turn by namespace (evaluation-route.ts,
 * evaluation-pool.ts, evaluation-worker.ts). What runs on the main thread anyway is guarded against crash loops: an
 * evaluation in flight when the process died is a suspect after the restart (evaluation-guard.ts).
 * See docs/design/runtime.md, "Isolation".
 */
export { fitThreadMemory, type ThreadMemory } from "./memory-fit.js";
export {
  ChartRenderPool,
  defaultRenderThreads,
  type ChartRenderPoolOptions,
  type PoolAnswer,
} from "./chart-render-pool.js";
export { ChartRenders } from "./chart-renders.js";
export { EvaluationPool, type EvaluationPoolOptions } from "./evaluation-pool.js";
export { EvaluationRoute, DEFAULT_SLICE_MS, type EvaluationRouteOptions } from "./evaluation-route.js";
export { armCrashReports, DEFAULT_CRASH_REPORT_DIR, type CrashReports } from "./crash-reports.js";
export {
  EvaluationGuard,
  type EvaluationGuardOptions,
  type EvaluationMarks,
  type EvaluationRef,
  type GuardDecision,
  type CrashCount,
  type CrashEvidence,
  type TestCrash,
} from "./evaluation-guard.js";
