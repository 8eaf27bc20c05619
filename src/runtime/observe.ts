/**
 * What the lookup port is asked for each kind of node: one object by identity (resources,
 * external references) or a label-selected list (forEach items, external collections).
 */
import type { CompiledGraph, CompiledNode } from "../graph/index.js";
import { nodeSelector, type InstanceRef } from "./decorate.js";
import { identityKey, identityOf, isRecord, metadataOf } from "./identity.js";
import type { CollectionQuery, KubeJson, ObjectIdentity } from "./types.js";

const OPERATORS = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

/** The query of an external collection: its selector (none = everything), its namespace (none = all). */
export function externalQuery(ref: KubeJson): CollectionQuery | string {
  const metadata = metadataOf(ref);
  const selector = isRecord(metadata.selector) ? metadata.selector : {};
  const matchLabels: Record<string, string> = {};
  if (isRecord(selector.matchLabels)) {
    for (const [key, value] of Object.entries(selector.matchLabels)) {
      if (typeof value !== "string")
        return `selector.matchLabels.${key} must be a string, got ${JSON.stringify(value)}`;
      matchLabels[key] = value;
    }
  }
  const matchExpressions: NonNullable<CollectionQuery["matchExpressions"]>[number][] = [];
  if (Array.isArray(selector.matchExpressions)) {
    for (const [i, raw] of selector.matchExpressions.entries()) {
      if (
        !isRecord(raw) ||
        typeof raw.key !== "string" ||
        typeof raw.operator !== "string" ||
        !OPERATORS.has(raw.operator)
      ) {
        return `selector.matchExpressions[${i}] must have a key and an operator In, NotIn, Exists or DoesNotExist`;
      }
      const values = Array.isArray(raw.values) ? raw.values.map(String) : undefined;
      matchExpressions.push({
        key: raw.key,
        operator: raw.operator as "In",
        ...(values === undefined ? {} : { values }),
      });
    }
  }
  const namespace =
    typeof metadata.namespace === "string" && metadata.namespace !== "" ? metadata.namespace : undefined;
  return {
    apiVersion: String(ref.apiVersion),
    kind: String(ref.kind),
    matchLabels,
    ...(namespace === undefined ? {} : { namespace }),
    ...(matchExpressions.length > 0 ? { matchExpressions } : {}),
  };
}

/** Every item of a forEach node, in any namespace, selected by instance and node labels. */
export function collectionQuery(graph: CompiledGraph, node: CompiledNode, instance: InstanceRef): CollectionQuery {
  return { apiVersion: node.apiVersion, kind: node.kind, matchLabels: nodeSelector(graph, instance, node.id) };
}

/** The listed items that match desired items, in desired order (stale extra items are prune's business). */
export function matchItems(desired: readonly KubeJson[], listed: readonly KubeJson[]): (KubeJson | undefined)[] {
  const byKey = new Map<string, KubeJson>();
  for (const item of listed) {
    const identity = identityOf(item);
    if (identity) byKey.set(identityKey(identity), item);
  }
  return desired.map((d) => {
    const identity = identityOf(d);
    return identity === undefined ? undefined : byKey.get(identityKey(identity));
  });
}

export function requireIdentity(object: KubeJson, where: string): ObjectIdentity | string {
  const identity = identityOf(object);
  if (identity !== undefined && identity.name !== "") return identity;
  return `${where}: rendered object has no apiVersion, kind or metadata.name (name: ${JSON.stringify(metadataOf(object).name)})`;
}
