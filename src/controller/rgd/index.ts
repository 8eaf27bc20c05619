/**
 * rgd: the RGD reconcile — compile, install the CRD and the author policy, serve the graph (start
 * or stop its instance kind), GraphRevisions and the RGD's status; and the follower that serves
 * graphs read-only on a standby. Never reconciles an instance itself (it only enqueues them).
 */
export { withClusterKinds } from "./cluster-kinds.js";
export { DEFAULT_MAX_GRAPH_REVISIONS } from "./graph-revision-policy.js";
export { enqueueInstances, rescopeInstances } from "./instance-kinds.js";
export { followRgd } from "./rgd-follower.js";
export { reconcileRgd } from "./reconcile.js";
export { onCrdChange } from "./capability-readers.js";
