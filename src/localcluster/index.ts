// localcluster: builds (from Go modules) and runs a real Kubernetes control plane on loopback.
// It owns processes, ports and temp dirs; it never reads process.env itself (callers pass env).
export {
  startLocalCluster,
  ClusterStartError,
  type LocalCluster,
  type LocalClusterOptions,
  type RestartOptions,
  type StopOptions,
} from "./cluster.js";
export { MissingBinariesError, cacheRoot, resolveBinaries } from "./binaries.js";
export { CLUSTER_MODES, COMPONENTS, componentsFor, type ClusterMode, type Component } from "./components.js";
export { CommandFailedError } from "./run-command.js";
export {
  DEFAULT_KUBE_MINOR,
  KUBE_RELEASES,
  UnsupportedKubeVersionError,
  resolveKubeRelease,
  type KubeRelease,
} from "./versions.js";
export { LOCAL_CONTEXT } from "./kubeconfig.js";
