/**
 * In-cluster config: the service account's CA, namespace and token file mounted into every pod,
 * and the API server address from KUBERNETES_SERVICE_HOST/PORT. The token is kept as a file path
 * so the credential provider re-reads it when the kubelet rotates it.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ConnectionConfig } from "./connection-config.js";
import { KubeconfigError } from "./errors.js";

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface InClusterSource {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where the service account is mounted (tests point this elsewhere). */
  readonly serviceAccountDir?: string;
}

export function isInCluster(source: InClusterSource): boolean {
  const dir = source.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  return source.env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(path.join(dir, "token"));
}

export function loadInClusterConfig(source: InClusterSource): ConnectionConfig {
  const dir = source.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = source.env.KUBERNETES_SERVICE_HOST;
  const port = source.env.KUBERNETES_SERVICE_PORT ?? "443";
  if (host === undefined || host === "")
    throw new KubeconfigError("in-cluster", "KUBERNETES_SERVICE_HOST", "not set: not running in a pod");
  const tokenFile = path.join(dir, "token");
  const read = (name: string): Buffer => {
    try {
      return readFileSync(path.join(dir, name));
    } catch (error) {
      throw new KubeconfigError(
        path.join(dir, name),
        "",
        `cannot read the service-account ${name}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  };
  read("token");
  const namespace = existsSync(path.join(dir, "namespace")) ? read("namespace").toString("utf8").trim() : "default";
  // IPv6 service hosts need brackets in a URL.
  const hostPart = host.includes(":") ? `[${host}]` : host;
  return {
    source: "in-cluster service account",
    server: `https://${hostPart}:${port}`,
    namespace,
    ca: read("ca.crt"),
    insecureSkipTlsVerify: false,
    tokenFile,
  };
}
