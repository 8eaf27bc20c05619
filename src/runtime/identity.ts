/**
 * Object identities and label selectors: what prune, duplicate detection and the in-memory lookup
 * key on. Identities compare by group (not version): apps/v1 and apps/v1beta1 Deployments with the
 * same name are one object to the API server.
 */
import { ANNOTATIONS } from "../api/index.js";
import type { CollectionQuery, KubeJson, ObjectIdentity } from "./types.js";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `apps/v1` → `apps`; `v1` → `` (the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export function metadataOf(object: KubeJson): Record<string, unknown> {
  return isRecord(object.metadata) ? object.metadata : {};
}

export function labelsOf(object: KubeJson): Record<string, string> {
  const labels = metadataOf(object).labels;
  if (!isRecord(labels)) return {};
  return Object.fromEntries(Object.entries(labels).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** The identity of an object; undefined when apiVersion, kind or name is missing. */
export function identityOf(object: KubeJson): ObjectIdentity | undefined {
  const metadata = metadataOf(object);
  const { apiVersion, kind } = object;
  const { name, namespace } = metadata;
  if (typeof apiVersion !== "string" || typeof kind !== "string" || typeof name !== "string") return undefined;
  const cluster = clusterOf(object);
  return {
    apiVersion,
    kind,
    name,
    ...(typeof namespace === "string" && namespace !== "" ? { namespace } : {}),
    ...(cluster === undefined ? {} : { cluster }),
  };
}

/** The target cluster a child names (ANNOTATIONS.cluster); undefined: the controller's own cluster. */
export function clusterOf(object: KubeJson): string | undefined {
  const annotations = metadataOf(object).annotations;
  const cluster = isRecord(annotations) ? annotations[ANNOTATIONS.cluster] : undefined;
  return typeof cluster === "string" && cluster !== "" ? cluster : undefined;
}

/** A string that is equal for two identities of the same object (group, kind, namespace, name). */
export function identityKey(identity: ObjectIdentity): string {
  const key = [groupOf(identity.apiVersion), identity.kind, identity.namespace ?? "", identity.name].join("\u0000");
  // Local identities keep their key unchanged: an RGD without cluster targets behaves as before.
  return identity.cluster === undefined ? key : `${key}\u0000${identity.cluster}`;
}

export function formatIdentity(identity: ObjectIdentity): string {
  const ns = identity.namespace === undefined ? "" : `${identity.namespace}/`;
  return `${identity.kind} ${ns}${identity.name} (${identity.apiVersion})${identity.cluster === undefined ? "" : ` in cluster ${identity.cluster}`}`;
}

export function matchesSelector(
  labels: Readonly<Record<string, string>>,
  query: Pick<CollectionQuery, "matchLabels" | "matchExpressions">,
): boolean {
  for (const [key, value] of Object.entries(query.matchLabels)) if (labels[key] !== value) return false;
  for (const expression of query.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, expression.key);
    const value = labels[expression.key];
    const values = expression.values ?? [];
    switch (expression.operator) {
      case "In":
        if (!has || !values.includes(value ?? "")) return false;
        break;
      case "NotIn":
        if (has && values.includes(value ?? "")) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
    }
  }
  return true;
}

/** Whether an object is one of the objects a collection query lists. */
export function matchesQuery(object: KubeJson, query: CollectionQuery): boolean {
  if (
    object.kind !== query.kind ||
    typeof object.apiVersion !== "string" ||
    groupOf(object.apiVersion) !== groupOf(query.apiVersion)
  )
    return false;
  const namespace = metadataOf(object).namespace;
  if (query.namespace !== undefined && query.namespace !== "" && namespace !== query.namespace) return false;
  return matchesSelector(labelsOf(object), query);
}

export function isTerminating(object: KubeJson): boolean {
  const deletion = metadataOf(object).deletionTimestamp;
  return typeof deletion === "string" && deletion !== "";
}
