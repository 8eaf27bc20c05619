/**
 * The template dialect's evaluator (docs/reference/seed-dialect.md, and charts imported from Helm):
 * rendering children from Go templates, chart manifests, Helm's render data, stable entropy and
 * hook runs. Pure: cluster data (lookups, capabilities) arrives as values; it may not import the
 * CEL room.
 */
export { createTemplateEvaluator, templateEvaluator } from "./evaluator.js";
export {
  isTestHook,
  parseChartOutput,
  parseManifestStream,
  renderChartOutputs,
  renderChartTemplate,
} from "./manifests.js";
export { coalesceValues, DEFAULT_KUBE_VERSION } from "./helm-data.js";
export { graphReadsClock, renderTimeToRecord } from "./entropy.js";
export { answerFingerprint, helmRenderEnv } from "./helm-cluster.js";
export { completedHookObjects, hookRunRecord, runToCompletionHooks } from "./hook-runs.js";
