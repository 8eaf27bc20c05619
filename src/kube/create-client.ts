/**
 * The public entry: createKubeClient() finds the configuration (explicit ConnectionConfig,
 * --kubeconfig, $KUBECONFIG, ~/.kube/config, else in-cluster) and wires transport, credentials,
 * rate limiter and discovery into one KubeClient. Only here is an `env` defaulted (by callers).
 */
import { existsSync } from "node:fs";
import type { BackoffOptions } from "./backoff.js";
import { KubeClient } from "./client.js";
import type { ConnectionConfig } from "./connection-config.js";
import { CredentialProvider } from "./credentials.js";
import { isInCluster, loadInClusterConfig } from "./in-cluster.js";
import { kubeconfigFiles, loadKubeconfig } from "./kubeconfig.js";
import { TokenBucket } from "./rate-limiter.js";
import { Transport } from "./transport.js";
import type { WriteFence } from "./write-fence.js";
import { silentLogger, type KubeLogger, type KubeMetrics } from "./types.js";

export interface KubeClientOptions {
  /** --kubeconfig: one file. Otherwise $KUBECONFIG (merged), ~/.kube/config, or in-cluster. */
  readonly kubeconfig?: string | undefined;
  /** --context. */
  readonly context?: string | undefined;
  /** Use this connection instead of reading any kubeconfig. */
  readonly connection?: ConnectionConfig;
  /** Force in-cluster config (service account) instead of a kubeconfig. */
  readonly inCluster?: boolean;
  /** Where the service account is mounted (default /var/run/secrets/kubernetes.io/serviceaccount). */
  readonly serviceAccountDir?: string;
  /** Environment for KUBECONFIG, HOME, KUBERNETES_SERVICE_* and exec plugins. Default: none. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Client-side rate limit shared by all requests (default 50 QPS, burst 100; qps 0 = off). */
  readonly qps?: number;
  readonly burst?: number;
  readonly maxRetries?: number;
  readonly retryBackoff?: BackoffOptions;
  /** Deadline of each request, all waiting included (rate limiter, socket, retries); default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Sockets for ordinary requests (default 64); watches have a pool of their own. */
  readonly maxRequestSockets?: number;
  /** Refuses writes once closed (leader election's fence). */
  readonly fence?: WriteFence;
  /** User-Agent of every request (default "kro-ts"); the controller adds its replica identity. */
  readonly userAgent?: string;
  readonly logger?: KubeLogger;
  readonly metrics?: KubeMetrics;
}

export function resolveConnection(options: KubeClientOptions): ConnectionConfig {
  if (options.connection !== undefined) return options.connection;
  const env = options.env ?? {};
  const inClusterSource = {
    env,
    ...(options.serviceAccountDir === undefined ? {} : { serviceAccountDir: options.serviceAccountDir }),
  };
  if (options.inCluster === true) return loadInClusterConfig(inClusterSource);
  const source = { kubeconfig: options.kubeconfig, context: options.context, env };
  // Like client-go: with no kubeconfig given and none on disk, a pod uses its service account.
  const explicit = (options.kubeconfig ?? "") !== "" || (env.KUBECONFIG ?? "") !== "";
  if (!explicit && options.context === undefined && isInCluster(inClusterSource)) {
    const files = env.HOME === undefined ? [] : kubeconfigFiles(source);
    if (!files.some((f) => existsSync(f))) return loadInClusterConfig(inClusterSource);
  }
  return loadKubeconfig(source);
}

/** Creates a client. Async so that future setup (e.g. a version probe) need not change callers. */
export function createKubeClient(options: KubeClientOptions = {}): Promise<KubeClient> {
  try {
    const config = resolveConnection(options);
    const logger = options.logger ?? silentLogger;
    const metrics = options.metrics ?? {};
    const credentials = new CredentialProvider(config, options.env ?? {});
    const limiter = new TokenBucket({ qps: options.qps ?? 50, burst: options.burst ?? 100 });
    const transport = new Transport(config, credentials, limiter, {
      logger,
      metrics,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.retryBackoff === undefined ? {} : { backoff: options.retryBackoff }),
      ...(options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }),
      ...(options.maxRequestSockets === undefined ? {} : { maxRequestSockets: options.maxRequestSockets }),
      ...(options.fence === undefined ? {} : { fence: options.fence }),
      ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
    });
    return Promise.resolve(new KubeClient({ config, transport, credentials, logger, metrics }));
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
