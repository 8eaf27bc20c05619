/**
 * Isolation: what of an instance's evaluation runs where the controller can stop and cap it.
 * Charts (spec.helm) render in a pool of worker threads with heap limits and a deadline
 * (chart-render-pool.ts, chart-worker.ts); their answers are kept by what they read
 * (chart-renders.ts). What runs on the main thread anyway is guarded against crash loops: the
 * replica remembers what it was evaluating when it died (evaluation-guard.ts, crash-record.ts).
 * See docs/design/runtime.md, "Isolation".
 */
export { ChartRenderPool, type ChartRenderPoolOptions, type PoolAnswer } from "./chart-render-pool.js";
export { ChartRenders } from "./chart-renders.js";
export { EvaluationGuard, type CrashRecordData, type CrashRecordStore, type EvaluationGuardOptions, type EvaluationRef, type GuardDecision, type Suspect } from "./evaluation-guard.js";
export { ConfigMapCrashRecord, crashRecordName } from "./crash-record.js";
