/**
 * Evaluates one live instance the way the controller does, from outside it: read the instance,
 * run the runtime over what has been read so far, fetch every object and collection the pass
 * says it reads, and repeat until nothing new is asked for. The result gives each node's live
 * state (`kro graph --instance`, `kro tree`, the web view) without trusting anything but the
 * cluster, read with the caller's own client.
 */
import { compareCodeUnits, LABELS } from "../api/index.js";
import type { CompiledGraph } from "../graph/index.js";
import { isNotFound, type KubeClient, type KubeObject } from "../kube/index.js";
import {
  createMemoryLookup,
  identityOf,
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
  /** Clusters holding some of its children that could not be read, and why. */
  readonly unreadable: ReadonlyMap<string, string>;
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
 * How objects placed in other registered clusters are read: one client per cluster, reached with
 * the reader's own rights on the hub (the controller's `registeredClusterClients`). Absent: only
 * the hub is read, and remote objects are reported unreadable.
 */
export interface ClusterReads {
  clientFor(cluster: string): Promise<KubeClient>;
}

/**
 * Where a pass's objects are read: the clusters and namespaces its desired objects name (a
 * collection of the instance is listed there, not across the cluster: a tenant may list only
 * its own namespaces), how other clusters are reached, and those that could not be read (why).
 */
export interface ReadScope {
  readonly reads?: ClusterReads;
  /** Other clusters whose collections are listed too. */
  readonly clusters: ReadonlySet<string>;
  /** Namespaces of the desired objects; undefined among them: some are cluster-scoped. */
  readonly namespaces: ReadonlySet<string | undefined>;
  readonly unreadable: Map<string, string>;
}

async function clientIn(
  client: KubeClient,
  cluster: string | undefined,
  remote: ReadScope | undefined,
): Promise<KubeClient | undefined> {
  if (cluster === undefined) return client;
  if (remote === undefined || remote.unreadable.has(cluster)) return undefined;
  if (remote.reads === undefined) {
    remote.unreadable.set(cluster, `cluster "${cluster}" is not read from here`);
    return undefined;
  }
  try {
    return await remote.reads.clientFor(cluster);
  } catch (error) {
    remote.unreadable.set(cluster, error instanceof Error ? error.message : String(error));
    return undefined;
  }
}

/** A read of another cluster that failed marks that cluster unreadable; the hub's failures are thrown. */
async function readIn<T>(
  cluster: string | undefined,
  remote: ReadScope | undefined,
  read: () => Promise<T>,
): Promise<T | undefined> {
  if (cluster === undefined || remote === undefined) return read();
  try {
    return await read();
  } catch (error) {
    if (isNotFound(error)) throw error;
    remote.unreadable.set(cluster, `cluster "${cluster}": ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/**
 * The namespaces a collection query is listed in: its own; for the instance's own collection
 * (its items are matched to desired objects, so only where those live can matter) the desired
 * objects' namespaces; otherwise across the cluster.
 */
function namespacesToList(w: CollectionQuery, scope: ReadScope | undefined): (string | undefined)[] {
  if (w.namespace !== undefined || scope === undefined || w.matchLabels[LABELS.instanceId] === undefined)
    return [w.namespace];
  return scope.namespaces.has(undefined) ? [undefined] : [...scope.namespaces];
}

async function fetchOne(
  client: KubeClient,
  w: ObjectIdentity | CollectionQuery,
  lookup: MemoryLookup,
  remote: ReadScope | undefined,
): Promise<void> {
  if (isQuery(w)) {
    for (const cluster of [undefined, ...(remote?.clusters ?? [])]) {
      const reader = await clientIn(client, cluster, remote);
      if (reader === undefined) continue;
      for (const namespace of namespacesToList(w, remote)) {
        const list = await readIn(cluster, remote, () =>
          reader.list(w.apiVersion, w.kind, { namespace, labelSelector: selectorString(w) }),
        ).catch((error: unknown) => {
          // A list answered 404: the cluster does not serve the kind (yet), so it holds no items of it.
          if (isNotFound(error)) return undefined;
          throw error;
        });
        if (list !== undefined) lookup.put(...(list.items as KubeJson[]));
      }
    }
    return;
  }
  const reader = await clientIn(client, w.cluster, remote);
  if (reader === undefined) return;
  try {
    const found = await readIn(w.cluster, remote, () => reader.get<KubeObject & KubeJson>(w));
    if (found !== undefined) lookup.put(found);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * Reads every object and collection in `watches` not read before (`fetched` remembers), into
 * `lookup`; returns how many reads were made. A missing object is simply not put. Objects in
 * other clusters are read there (`remote`), never in the hub: an object of the same name in the
 * hub is another object.
 */
export async function fetchWatched(
  client: KubeClient,
  watches: readonly (ObjectIdentity | CollectionQuery)[],
  lookup: MemoryLookup,
  fetched: Set<string>,
  remote?: ReadScope,
): Promise<number> {
  // A collection is listed again when the pass names a new cluster or namespace its items may live in.
  const where = [
    [...(remote?.clusters ?? [])].sort(compareCodeUnits).join(","),
    [...(remote?.namespaces ?? [])]
      .map((n) => n ?? "*")
      .sort(compareCodeUnits)
      .join(","),
  ].join("/");
  const keyOf = (w: ObjectIdentity | CollectionQuery) => (isQuery(w) ? `${queryKey(w)}@${where}` : queryKey(w));
  const wanted = watches.filter((w) => !fetched.has(keyOf(w)));
  for (const w of wanted) {
    fetched.add(keyOf(w));
    await fetchOne(client, w, lookup, remote);
  }
  return wanted.length;
}

/** The clusters and namespaces a pass's desired objects are placed in. */
export function placesNamed(evaluation: InstanceEvaluation): {
  clusters: Set<string>;
  namespaces: Set<string | undefined>;
} {
  const clusters = new Set<string>();
  const namespaces = new Set<string | undefined>();
  for (const node of evaluation.nodes)
    for (const object of node.desired) {
      const identity = identityOf(object);
      if (identity === undefined) continue;
      if (identity.cluster !== undefined) clusters.add(identity.cluster);
      namespaces.add(identity.namespace);
    }
  return { clusters, namespaces };
}

export async function evaluateLiveInstance(
  client: KubeClient,
  graph: CompiledGraph,
  namespace: string | undefined,
  name: string,
  reads?: ClusterReads,
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
  const unreadable = new Map<string, string>();
  let evaluation = evaluateInstance(graph, instance, lookup, {});
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const remote = { ...(reads === undefined ? {} : { reads }), ...placesNamed(evaluation), unreadable };
    if ((await fetchWatched(client, evaluation.watches, lookup, fetched, remote)) === 0) break;
    evaluation = evaluateInstance(graph, instance, lookup, {});
  }
  return { instance, evaluation, unreadable };
}
