/**
 * clusters: where children may live besides the controller's own cluster — registrations read
 * from kubeconfig Secrets and Cluster Inventory ClusterProfiles, and one client per registered
 * cluster (docs/design/clusters.md). No reconciler lives here.
 */
export { ClusterRegistry, type ClusterClient, type ClusterConnections } from "./cluster-registry.js";
export { CLUSTER_NAME_LABELS, KUBECONFIG_KEYS, readRegistration } from "./kubeconfig-secret.js";
export { registeredClusterClients, USUAL_CLUSTER_NAMESPACE, type RegisteredClusterClients } from "./cluster-reader.js";
