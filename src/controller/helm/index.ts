/**
 * helm: what a chart (spec.helm) sees of the cluster in the controller — the version and
 * discovery-based capabilities, and the scopes `lookup` may use. Reads only; knows no reconciler.
 */
export { HelmClusterCache } from "./helm-capabilities.js";
export { withHelmCluster, type HelmClusterSource } from "./helm-cluster.js";
