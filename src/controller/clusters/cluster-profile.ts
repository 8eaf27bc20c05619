/**
 * A cluster registered by the Cluster Inventory API (sig-multicluster, KEP-4322): a
 * `ClusterProfile` (multicluster.x-k8s.io/v1alpha1) in the controller's cluster namespace, read as
 * docs/design/clusters.md ("ClusterProfile") decides:
 *
 * - the cluster's name is the profile's `metadata.name` (a DNS label, as every cluster name);
 * - where to connect comes from an access provider of its status (`status.accessProviders`, else
 *   the deprecated `status.credentialProviders`): the one named `secretreader` when there is one,
 *   else the first — `cluster.server`, `certificate-authority-data`, `tls-server-name`;
 * - the credentials come from a Secret in the same namespace, never from the profile and never
 *   from a command: upstream's `secretreader` convention, a Secret named after the cluster (or the
 *   `clusterName` of the provider's `client.authentication.k8s.io/exec` extension) with key
 *   `token`. The provider's exec plugin itself is never run (clusters.md, "only inline credentials");
 * - `ControlPlaneHealthy=False` in its conditions makes the cluster unusable (its children are held,
 *   nothing is written or deleted there) until the condition changes.
 *
 * Pure: the registry (cluster-registry.ts) feeds it the objects its informers hold.
 */
import type { KubeObject } from "../../kube/index.js";
import type { Registration } from "./kubeconfig-secret.js";

export const CLUSTER_PROFILE = { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ClusterProfile" } as const;
/** The access provider whose credentials live where we read them (upstream's plugin of that name). */
export const PREFERRED_PROVIDER = "secretreader";
export const PROFILE_TOKEN_KEY = "token";
const EXEC_EXTENSION = "client.authentication.k8s.io/exec";
const HEALTH_CONDITION = "ControlPlaneHealthy";
const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** clientcmd's v1 Cluster as JSON (what an access provider carries). */
interface ProviderCluster {
  readonly server?: unknown;
  readonly "certificate-authority-data"?: unknown;
  readonly "certificate-authority"?: unknown;
  readonly "tls-server-name"?: unknown;
  readonly "insecure-skip-tls-verify"?: unknown;
  readonly extensions?: unknown;
}
interface AccessProvider {
  readonly name?: unknown;
  readonly cluster?: ProviderCluster;
}
type Profile = KubeObject & {
  status?: { accessProviders?: unknown; credentialProviders?: unknown; conditions?: unknown };
};

/** The cluster a profile registers (undefined: its name cannot name a cluster). */
export function profileCluster(profile: KubeObject): string | undefined {
  const name = profile.metadata?.name ?? "";
  return CLUSTER_NAME.test(name) ? name : undefined;
}

/** The access provider we read: `secretreader` if offered, else the first (accessProviders first, as upstream prefers them). */
function chosenProvider(profile: Profile): AccessProvider | undefined {
  const list = (value: unknown): AccessProvider[] =>
    Array.isArray(value) ? value.filter((p): p is AccessProvider => typeof p === "object" && p !== null) : [];
  const all = [...list(profile.status?.accessProviders), ...list(profile.status?.credentialProviders)];
  return all.find((p) => p.name === PREFERRED_PROVIDER) ?? all[0];
}

/** The Secret holding the profile's token: the exec extension's `clusterName` (upstream secretreader), else the profile's name. */
export function profileTokenSecret(profile: KubeObject): string {
  const extensions = chosenProvider(profile)?.cluster?.extensions;
  if (Array.isArray(extensions)) {
    for (const entry of extensions as ({ name?: unknown; extension?: { clusterName?: unknown } } | null)[]) {
      const clusterName = entry?.name === EXEC_EXTENSION ? entry.extension?.clusterName : undefined;
      if (typeof clusterName === "string" && clusterName !== "") return clusterName;
    }
  }
  return profile.metadata?.name ?? "";
}

/** Why the profile says its cluster cannot be used (ControlPlaneHealthy=False), if it does. */
export function profileUnhealthy(profile: KubeObject): string | undefined {
  const conditions = (profile as Profile).status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  const health = (
    conditions as ({ type?: unknown; status?: unknown; reason?: unknown; message?: unknown } | null)[]
  ).find((c) => c?.type === HEALTH_CONDITION);
  if (health?.status !== "False") return undefined;
  const why = [health.reason, health.message].filter((s): s is string => typeof s === "string" && s !== "").join(": ");
  return `${HEALTH_CONDITION}=False${why === "" ? "" : ` (${why})`}`;
}

/** The registration a profile and its token Secret make (an error names the profile or the Secret). */
export function readProfile(
  profile: KubeObject,
  tokenSecret: (KubeObject & { data?: Record<string, string> }) | undefined,
): Registration {
  const namespace = profile.metadata?.namespace ?? "";
  const cluster = profileCluster(profile) ?? profile.metadata?.name ?? "";
  const where = `ClusterProfile ${namespace}/${profile.metadata?.name ?? ""}`;
  const unhealthy = profileUnhealthy(profile);
  if (unhealthy !== undefined) return { cluster, error: `${where} reports ${unhealthy}` };
  const provider = chosenProvider(profile);
  if (provider === undefined)
    return { cluster, error: `${where} has no access provider in its status (status.accessProviders) yet` };
  const target = provider.cluster ?? {};
  const server = typeof target.server === "string" ? target.server : "";
  if (!/^https?:\/\//.test(server))
    return { cluster, error: `${where} access provider ${String(provider.name)} has no server URL` };
  if (target["certificate-authority"] !== undefined)
    return {
      cluster,
      error: `${where}: cluster.certificate-authority (a file) is not allowed in a cluster registration (inline credentials only: certificate-authority-data)`,
    };
  const secretName = profileTokenSecret(profile);
  const secretWhere = `Secret ${namespace}/${secretName}`;
  if (tokenSecret === undefined)
    return { cluster, error: `${where} has no credentials: expected ${secretWhere} with key ${PROFILE_TOKEN_KEY}` };
  const encoded = tokenSecret.data?.[PROFILE_TOKEN_KEY];
  const token = typeof encoded === "string" ? Buffer.from(encoded, "base64").toString("utf8").trim() : "";
  if (token === "")
    return { cluster, error: `${secretWhere} has no key ${PROFILE_TOKEN_KEY} (the token for ${where})` };
  const caData =
    typeof target["certificate-authority-data"] === "string" ? target["certificate-authority-data"] : undefined;
  const tlsServerName =
    typeof target["tls-server-name"] === "string" && target["tls-server-name"] !== ""
      ? target["tls-server-name"]
      : undefined;
  const insecureSkipTlsVerify = target["insecure-skip-tls-verify"] === true;
  return {
    cluster,
    connection: {
      source: `${where} (access provider ${String(provider.name)}) with ${secretWhere} key ${PROFILE_TOKEN_KEY}`,
      server,
      namespace: "default",
      insecureSkipTlsVerify,
      token,
      ...(caData === undefined ? {} : { ca: Buffer.from(caData, "base64") }),
      ...(tlsServerName === undefined ? {} : { tlsServerName }),
    },
    // Only what the connection is made of: a profile's status changes often (properties, times).
    fingerprint: JSON.stringify({ server, caData, tlsServerName, insecureSkipTlsVerify, token }),
  };
}
