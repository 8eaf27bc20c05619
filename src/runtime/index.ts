// runtime: per-instance evaluation of a CompiledGraph — includeWhen, forEach, readiness, desired objects, status.
// Pure: no I/O, no timers, no clock; the cluster is seen only through the ObservedLookup port.
export * from "./types.js";
export type { DialectEvaluator, EvaluationScope, Outcome, ProjectedStatus } from "./dialect.js";
export { evaluateInstance } from "./evaluate.js";
export { buildInstanceStatus } from "./status.js";
export { deletionPlan, nodesByRecordedId, prunePlan } from "./prune.js";
export { evaluatorFor } from "./evaluator-for.js";
export { createMemoryLookup, type MemoryLookup } from "./memory-lookup.js";
export {
  cartesianProduct,
  DEFAULT_MAX_COLLECTION_DIMENSIONS,
  DEFAULT_MAX_COLLECTION_SIZE,
  type Dimension,
  type ProductLimits,
} from "./for-each.js";
export {
  childLabels,
  decorate,
  defaultNamespace,
  instanceRef,
  nodeSelector,
  DEFAULT_KRO_VERSION,
  type InstanceRef,
} from "./decorate.js";
export { clusterOf, formatIdentity, identityKey, identityOf, matchesQuery, matchesSelector } from "./identity.js";
export { applySchemaDefaults, crdSchema } from "./instance-schema/index.js";
export { validateInstance } from "./instance-schema/index.js";
export { renderInstance, type RenderOptions, type RenderResult } from "./render.js";
export { templateEvaluator } from "./template-dialect/index.js";
export {
  answerFingerprint,
  isTestHook,
  parseChartOutput,
  parseManifestStream,
  renderChartOutputs,
  renderChartTemplate,
} from "./template-dialect/index.js";
export { coalesceValues, DEFAULT_KUBE_VERSION } from "./template-dialect/index.js";
export { graphReadsClock, renderTimeToRecord } from "./template-dialect/index.js";
export { completedHookObjects, hookRunRecord, runToCompletionHooks } from "./template-dialect/index.js";
export {
  currentConditions,
  orderConditions,
  rootReady,
  stamp,
  type Condition,
  type ConditionInput,
} from "./conditions.js";
export {
  apiOfGraph,
  ConversionError,
  convertObject,
  isConversionError,
  servedVersionNames,
  type ApiOfVersions,
  type VersionedObject,
} from "./conversion/index.js";
export { unmetHealthCheck } from "./cel/index.js";
