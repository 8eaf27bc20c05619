/**
 * Helm's install order by kind (pkg/releaseutil/kind_sorter.go, InstallOrder), as dependency
 * edges: kinds Helm creates earlier are dependencies of kinds it creates later. Only kinds that
 * are ready once they exist (ConfigMap, ServiceAccount, RBAC, …) gate later kinds; a kind with a
 * `--wait` readiness (Service, Deployment, PVC, …) does not, since Helm creates everything before
 * it waits — a Deployment waiting for its Service's endpoints would never start.
 */
export const INSTALL_ORDER: readonly string[] = [
  "PriorityClass",
  "Namespace",
  "NetworkPolicy",
  "ResourceQuota",
  "LimitRange",
  "PodSecurityPolicy",
  "PodDisruptionBudget",
  "ServiceAccount",
  "Secret",
  "SecretList",
  "ConfigMap",
  "StorageClass",
  "PersistentVolume",
  "PersistentVolumeClaim",
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleList",
  "ClusterRoleBinding",
  "ClusterRoleBindingList",
  "Role",
  "RoleList",
  "RoleBinding",
  "RoleBindingList",
  "Service",
  "DaemonSet",
  "Pod",
  "ReplicationController",
  "ReplicaSet",
  "Deployment",
  "HorizontalPodAutoscaler",
  "StatefulSet",
  "Job",
  "CronJob",
  "IngressClass",
  "Ingress",
  "APIService",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
];

/** Rank of a kind in Helm's order; unknown kinds (custom resources) come last, as in Helm. */
export function installRank(kind: string): number {
  const rank = INSTALL_ORDER.indexOf(kind);
  return rank < 0 ? INSTALL_ORDER.length : rank;
}

export interface OrderedNode {
  readonly id: string;
  readonly kind: string;
  /** Whether the node has a readiness beyond existing (then it gates nothing). */
  readonly waits: boolean;
  /**
   * The node's enabling condition (a subchart's). A node never depends on a gate with another
   * condition: in kro an excluded dependency excludes its dependents, so a root object would
   * vanish with a disabled subchart's ConfigMap.
   */
  readonly condition?: string;
}

/**
 * dependsOn per node: the nodes of the nearest earlier rank that are ready on existence (each of
 * those depends on its own predecessors, so the chain carries the whole order).
 */
export function installDependencies(nodes: readonly OrderedNode[]): Map<string, string[]> {
  const gates = nodes.filter((n) => !n.waits);
  const out = new Map<string, string[]>();
  for (const node of nodes) {
    const rank = installRank(node.kind);
    const earlier = gates.filter(
      (g) => installRank(g.kind) < rank && (g.condition === undefined || g.condition === node.condition),
    );
    const nearest = Math.max(-1, ...earlier.map((g) => installRank(g.kind)));
    out.set(
      node.id,
      earlier.filter((g) => installRank(g.kind) === nearest).map((g) => g.id),
    );
  }
  return out;
}
