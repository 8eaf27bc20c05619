/**
 * clusters: where children may live besides the controller's own cluster — registrations read
 * from kubeconfig Secrets, and one client per registered cluster (docs/design/clusters.md).
 */
export { ClusterRegistry, type ClusterClient, type ClusterConnections } from "./cluster-registry.js";
export { CLUSTER_NAME_LABELS, KUBECONFIG_KEYS, readRegistration } from "./kubeconfig-secret.js";
