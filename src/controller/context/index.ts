/**
 * context: what every reconciler shares — the ControllerContext type, the registry of served
 * graphs, the apply memo, Events, and JSON comparison. It may import the rooms that provide
 * parts of the context (loop, watches, helm) but never a reconciler (instance, rgd, crds,
 * author-policy).
 */
export { ApplyMemo } from "./apply-memo.js";
export { OwnWrites } from "./own-writes.js";
export { InstanceMemory } from "./instance-memory.js";
export {
  type CacheScoping,
  type ControllerContext,
  type ControllerOptions,
  type InstanceEvaluatedEvent,
  type PolicySync,
} from "./controller-context.js";
export { recordConditionChanges, recordEvent, type EventSink } from "./events.js";
export { isJsonSubset, jsonEqual } from "./json-equal.js";
export {
  ServedGraphs,
  instanceKey,
  instanceKeyOf,
  instanceFlowOf,
  parseInstanceKey,
  type InstanceKind,
  type ServedGraph,
} from "./served-graphs.js";
export {
  AuthorPolicyState,
  SETTLE_MS,
  type GateRight,
  type ObservedWrite,
  type PolicyStanding,
} from "./author-policy-state.js";
export { revisionOf, type BreachWindow } from "./breach-windows.js";
export { DelegationVerdicts, delegationFingerprint, type DelegationVerdict } from "./delegation-verdicts.js";
export { AccessReviews, type AccessRequest } from "./access-reviews.js";
