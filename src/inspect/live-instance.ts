/**
 * Evaluates one live instance the way the controller does, from outside it: read the instance,
 * run the runtime over what has been read so far, fetch every object and collection the pass
 * says it reads, and repeat until nothing new is asked for. The result gives each node's live
 * state (`kro graph --instance`, `kro tree`, the web view) without trusting anything but the
 * cluster, read with the caller's own client.
 */
import type { CompiledGraph } from "../graph/index.js";
import { isNotFound, type KubeClient, type KubeObject } from "../kube/index.js";
import {
  createMemoryLookup,
  evaluateInstance,
  identityKey,
  type CollectionQuery,
  type InstanceEvaluation,
  type KubeJson,
  type MemoryLookup,
  type ObjectIdentity,
} from "../runtime/index.js";

/** Enough for any realistic graph depth: every round reads at least one new object. */
export const MAX_ROUNDS = 32;

export interface LiveInstance {
  readonly instance: KubeObject;
  readonly evaluation: InstanceEvaluation;
}

export class InstanceNotFoundError extends Error {
  override readonly name = "InstanceNotFoundError";
}

const isQuery = (w: ObjectIdentity | CollectionQuery): w is CollectionQuery => "matchLabels" in w;

/** A label selector string (`a=b,c in (d,e),!f`) for a collection query. */
export function selectorString(query: CollectionQuery): string {
  const parts = Object.entries(query.matchLabels).map(([k, v]) => `${k}=${v}`);
  for (const e of query.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.join(",");
}

function queryKey(w: ObjectIdentity | CollectionQuery): string {
  return isQuery(w) ? `list:${w.apiVersion}/${w.kind}/${w.namespace ?? "*"}?${selectorString(w)}` : identityKey(w);
}

/**
 * Reads every object and collection in `watches` not read before (`fetched` remembers), into
 * `lookup`; returns how many reads were made. A missing object is simply not put.
 */
export async function fetchWatched(
  client: KubeClient,
  watches: readonly (ObjectIdentity | CollectionQuery)[],
  lookup: MemoryLookup,
  fetched: Set<string>,
): Promise<number> {
  const wanted = watches.filter((w) => !fetched.has(queryKey(w)));
  for (const w of wanted) {
    fetched.add(queryKey(w));
    if (isQuery(w)) {
      const list = await client.list(w.apiVersion, w.kind, {
        namespace: w.namespace,
        labelSelector: selectorString(w),
      });
      lookup.put(...(list.items as KubeJson[]));
    } else {
      try {
        lookup.put(await client.get<KubeObject & KubeJson>(w));
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }
  return wanted.length;
}

export async function evaluateLiveInstance(
  client: KubeClient,
  graph: CompiledGraph,
  namespace: string | undefined,
  name: string,
): Promise<LiveInstance> {
  const { group, version, kind } = graph.instance;
  const apiVersion = group === "" ? version : `${group}/${version}`;
  let instance: KubeObject;
  try {
    instance = await client.get({ apiVersion, kind, name, ...(namespace === undefined ? {} : { namespace }) });
  } catch (error) {
    if (isNotFound(error))
      throw new InstanceNotFoundError(
        `${kind} ${namespace === undefined ? "" : `${namespace}/`}${name} not found on ${client.server}`,
      );
    throw error;
  }
  const lookup = createMemoryLookup();
  const fetched = new Set<string>();
  let evaluation = evaluateInstance(graph, instance, lookup, {});
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if ((await fetchWatched(client, evaluation.watches, lookup, fetched)) === 0) break;
    evaluation = evaluateInstance(graph, instance, lookup, {});
  }
  return { instance, evaluation };
}
