// kube: the only way kro-ts talks to an API server — config/auth, raw-JSON requests, SSA, watches, informers.
// It must not model objects (bodies stay raw JSON), read process.env itself, or pick a logging/metrics library.
export { createKubeClient, resolveConnection, type KubeClientOptions } from "./create-client.js";
export { KubeClient, METADATA_ACCEPT, METADATA_LIST_ACCEPT } from "./client.js";
export type {
  ApplyOptions,
  DeleteOptions,
  FieldValidation,
  ListOptions,
  RequestControl,
  WatchOptions,
  WriteOptions,
} from "./request-options.js";
export { bearerConnection, type ConnectionConfig, type ExecConfig } from "./connection-config.js";
export { loadKubeconfig, kubeconfigFiles, type KubeconfigSource } from "./kubeconfig.js";
export { loadInClusterConfig, isInCluster, SERVICE_ACCOUNT_DIR } from "./in-cluster.js";
export {
  ApiError,
  DiscoveryError,
  ExecCredentialError,
  FencedError,
  KubeconfigError,
  TransportError,
  isAlreadyExists,
  isConflict,
  isDeadlineExceeded,
  isFenced,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isServerUnavailable,
  isUnauthorized,
} from "./errors.js";
export { Discovery, splitApiVersion, type ResourceInfo } from "./discovery.js";
export {
  Informer,
  stripManagedFields,
  type InformerHandlers,
  type InformerOptions,
  type InformerSource,
  type InformerStats,
} from "./informer.js";
export { InformerManager, informerKey, type InformerLease } from "./informer-manager.js";
export { Store, objectKey, relistDifference, type IndexFunc } from "./store.js";
export { Backoff, type BackoffOptions } from "./backoff.js";
export { WriteFence } from "./write-fence.js";
export { parseLabelSelector, selectorTerms, type LabelSelectorObject } from "./label-selector.js";
export { TokenBucket, type RateLimitOptions } from "./rate-limiter.js";
export type { WatchEvent, WatchEventType } from "./watch-stream.js";
export type {
  KubeList,
  KubeLogger,
  KubeMetrics,
  KubeObject,
  ObjectRef,
  RequestMetric,
  WatchReconnectMetric,
} from "./types.js";
