/** The binaries a local cluster runs, and which of them each mode needs. */
export const COMPONENTS = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"] as const;
export type Component = (typeof COMPONENTS)[number];

export const CLUSTER_MODES = ["minimal", "full"] as const;
export type ClusterMode = (typeof CLUSTER_MODES)[number];

export function componentsFor(mode: ClusterMode): readonly Component[] {
  return mode === "minimal" ? ["etcd", "kube-apiserver"] : COMPONENTS;
}

export type BinaryPaths = Partial<Record<Component, string>>;
