/**
 * The namespace the replicas coordinate in (Leases for --leader-elect and --shards; default
 * kro-system or $POD_NAMESPACE). Without it every Lease request fails with a 404 that a warning
 * per retry period only hints at, so the controller makes sure of it before
 * campaigning: present is fine, absent is created, and absent-but-not-creatable ends the start
 * with an error that names the namespace and the two ways out. A controller that may not read
 * Namespaces at all (least-privilege RBAC: Leases in one namespace, nothing else) cannot tell,
 * and goes on: its first Lease write names the namespace if it really is missing.
 */
import { isAlreadyExists, isForbidden, isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";

export class CoordinationNamespaceError extends Error {
  override name = "CoordinationNamespaceError";
}

export type CoordinationNamespaceOutcome = "present" | "created" | "unknown";

/** `why` names the flag that needs it, e.g. "--leader-elect". */
export async function ensureCoordinationNamespace(
  client: Pick<KubeClient, "get" | "create">,
  namespace: string,
  why: string,
  logger: Logger,
): Promise<CoordinationNamespaceOutcome> {
  const ref = { apiVersion: "v1", kind: "Namespace", name: namespace };
  let existing: KubeObject | undefined;
  try {
    existing = await client.get(ref);
  } catch (error) {
    if (isForbidden(error)) {
      logger.info({ namespace }, "may not read the coordination namespace; assuming it exists");
      return "unknown";
    }
    if (!isNotFound(error)) throw error;
  }
  if (existing !== undefined) {
    if (existing.metadata?.deletionTimestamp !== undefined) {
      throw new CoordinationNamespaceError(
        `${why} needs the namespace "${namespace}" for its Leases, and it is being deleted: wait until it is gone and create it again, or choose another with --leader-election-namespace`,
      );
    }
    return "present";
  }
  try {
    await client.create({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace, labels: { "app.kubernetes.io/managed-by": "kro" } },
    });
  } catch (error) {
    if (isAlreadyExists(error)) return "present";
    if (isForbidden(error)) {
      throw new CoordinationNamespaceError(
        `${why} needs the namespace "${namespace}" for its Leases; it does not exist and the controller may not create it (${(error as Error).message}): create it (kubectl create namespace ${namespace}) or choose an existing one with --leader-election-namespace`,
      );
    }
    throw error;
  }
  logger.info({ namespace }, "created the coordination namespace");
  return "created";
}
