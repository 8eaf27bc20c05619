// runtime: per-instance evaluation of a CompiledGraph — includeWhen, forEach, readiness, desired objects, status.
// Pure: no I/O, no timers, no clock; the cluster is seen only through the ObservedLookup port.
export * from "./types.js";
export { templateEvaluator } from "./template-dialect/evaluator.js";
