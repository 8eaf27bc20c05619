/**
 * A cluster registration (docs/design/clusters.md): a Secret in the controller's namespace labelled with
 * the cluster's name, holding a kubeconfig — the Cluster API convention (key `value`, label
 * `cluster.x-k8s.io/cluster-name`) or KREP-012's (key `kubeconfig`), under kro-ts's label
 * `kro.run/cluster-name`. Only the kubeconfig's current context is used.
 *
 * Whoever can write such a Secret decides where the controller connects, but never what runs in
 * the controller: a kubeconfig naming an exec plugin, an auth provider or a local file (token,
 * certificate) is refused — a Secret's author must not make the controller run a command or read
 * its own files.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { loadKubeconfig, type ConnectionConfig, type KubeObject } from "../../kube/index.js";

export const CLUSTER_NAME_LABELS = ["kro.run/cluster-name", "cluster.x-k8s.io/cluster-name"] as const;
export const KUBECONFIG_KEYS = ["value", "kubeconfig"] as const;

/** Keys that make a kubeconfig run something or read a file of the controller's. */
const FORBIDDEN_USER_KEYS = ["exec", "auth-provider", "tokenFile", "client-certificate", "client-key"];
const FORBIDDEN_CLUSTER_KEYS = ["certificate-authority"];

export type Registration =
  | { readonly cluster: string; readonly connection: ConnectionConfig; readonly fingerprint: string }
  | { readonly cluster: string; readonly error: string };

/** The cluster name a Secret registers, if any (kro-ts's label first). */
export function registeredName(secret: KubeObject): string | undefined {
  const labels = secret.metadata?.labels ?? {};
  for (const label of CLUSTER_NAME_LABELS)
    if (labels[label] !== undefined && labels[label] !== "") return labels[label];
  return undefined;
}

export function readRegistration(secret: KubeObject & { data?: Record<string, string> }): Registration | undefined {
  const cluster = registeredName(secret);
  if (cluster === undefined) return undefined;
  const where = `Secret ${secret.metadata?.namespace ?? ""}/${secret.metadata?.name ?? ""}`;
  const key = KUBECONFIG_KEYS.find((k) => typeof secret.data?.[k] === "string");
  if (key === undefined)
    return { cluster, error: `${where} has no kubeconfig (expected key ${KUBECONFIG_KEYS.join(" or ")})` };
  const text = Buffer.from(secret.data?.[key] ?? "", "base64").toString("utf8");
  const refused = forbiddenKey(text);
  if (refused !== undefined)
    return {
      cluster,
      error: `${where}: kubeconfig ${refused} is not allowed in a cluster registration (inline credentials only: token or *-data fields)`,
    };
  const dir = mkdtempSync(path.join(tmpdir(), "kro-cluster-"));
  try {
    const file = path.join(dir, "kubeconfig");
    writeFileSync(file, text, { mode: 0o600 });
    const connection = loadKubeconfig({ kubeconfig: file, env: {} });
    return { cluster, connection: { ...connection, source: `${where} key ${key}` }, fingerprint: text };
  } catch (error) {
    return {
      cluster,
      error: `${where} key ${key}: ${error instanceof Error ? error.message.replace(file(dir), "kubeconfig") : String(error)}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const file = (dir: string): string => path.join(dir, "kubeconfig");

function forbiddenKey(text: string): string | undefined {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return undefined; // loadKubeconfig reports the syntax error with its position
  }
  const entries = (list: unknown, field: string): Record<string, unknown>[] =>
    Array.isArray(list)
      ? list.flatMap((e) =>
          typeof e === "object" && e !== null && typeof (e as Record<string, unknown>)[field] === "object"
            ? [(e as Record<string, Record<string, unknown>>)[field] as Record<string, unknown>]
            : [],
        )
      : [];
  const root = (typeof doc === "object" && doc !== null ? doc : {}) as Record<string, unknown>;
  for (const user of entries(root.users, "user"))
    for (const key of FORBIDDEN_USER_KEYS) if (user[key] !== undefined) return `users[].user.${key}`;
  for (const cluster of entries(root.clusters, "cluster"))
    for (const key of FORBIDDEN_CLUSTER_KEYS) if (cluster[key] !== undefined) return `clusters[].cluster.${key}`;
  return undefined;
}
