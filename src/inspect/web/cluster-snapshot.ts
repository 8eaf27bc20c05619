/**
 * Reads what the web view shows from the cluster with the caller's own client (`kro ui`: the
 * kubeconfig's user; the controller's endpoint: the requesting user's token): RGDs, the instances
 * of each (all namespaces, or the client's default namespace when listing all is refused), each
 * instance's tree as `kro tree` reads it, and recent Events. A read the API server refuses is kept
 * as "not permitted" with the server's message — nothing is retried with other rights, and
 * nothing else is read in its place. Read-only: get and list requests only. Compiled graphs come
 * from the caller's `GraphSource` (they are not read from the cluster, and never widen what is shown).
 */
import { KRO_API_VERSION, RGD } from "../../api/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import { ApiError, isForbidden, type KubeClient, type KubeObject } from "../../kube/index.js";
import { createTreeReader, type GraphSource, type TreeReader } from "../tree-reader.js";
import type { InstanceTree } from "../tree-model.js";
import type { ClusterSnapshot, InstanceSnapshot, Read, RgdSnapshot } from "./view-model.js";

export interface SnapshotOptions {
  /** Label selector for the RGDs shown (default: all). */
  readonly selector?: string;
  /** Show only this namespace's instances and Events (default: all namespaces the caller may list). */
  readonly namespace?: string;
  /** Trees are read for at most this many instances per RGD (each costs a read per child). */
  readonly maxTrees: number;
  /** Where the graphs of the RGDs just listed come from (the CLI compiles them; the controller serves them). */
  readonly graphs: (rgds: readonly KubeObject[]) => GraphSource;
}

export interface SnapshotReader {
  read(): Promise<ClusterSnapshot>;
  /** The compiled graph of an RGD the last read showed (for its picture): none for an RGD it did not show. */
  graph(rgdName: string, generation: string): CompiledGraph | undefined;
}

const ok = <T>(value: T): Read<T> => ({ ok: true, value });

export function failed(error: unknown): Read<never> {
  if (error instanceof ApiError)
    return { ok: false, notPermitted: isForbidden(error), message: error.serverMessage || error.message };
  return { ok: false, notPermitted: false, message: error instanceof Error ? error.message : String(error) };
}

async function attempt<T>(read: () => Promise<T>): Promise<Read<T>> {
  try {
    return ok(await read());
  } catch (error) {
    return failed(error);
  }
}

/**
 * A list over all namespaces, or — when that is refused and the kind is namespaced — over the
 * one namespace the kubeconfig names (a tenant's usual rights). The scope says which one it was.
 */
async function listScoped(
  client: KubeClient,
  apiVersion: string,
  kind: string,
  namespaced: boolean,
  namespace: string | undefined,
): Promise<{ scope: string; items: Read<KubeObject[]> }> {
  if (!namespaced)
    return { scope: "the cluster", items: await attempt(async () => (await client.list(apiVersion, kind)).items) };
  if (namespace !== undefined)
    return {
      scope: `namespace ${namespace}`,
      items: await attempt(async () => (await client.list(apiVersion, kind, { namespace })).items),
    };
  const all = await attempt(async () => (await client.list(apiVersion, kind)).items);
  if (all.ok || !all.notPermitted) return { scope: "all namespaces", items: all };
  const own = client.defaultNamespace;
  return {
    scope: `namespace ${own} (listing all namespaces is not permitted)`,
    items: await attempt(async () => (await client.list(apiVersion, kind, { namespace: own })).items),
  };
}

async function treeOf(
  reader: TreeReader,
  kind: { apiVersion: string; kind: string },
  object: KubeObject,
): Promise<Read<InstanceTree>> {
  const meta = object.metadata ?? {};
  return attempt(() => reader.read(kind.apiVersion, kind.kind, meta.namespace, meta.name ?? ""));
}

export function createSnapshotReader(client: KubeClient, options: SnapshotOptions): SnapshotReader {
  // Only what the last read showed (and so the caller may read): a picture is never drawn for another RGD.
  let pictured = new Map<string, CompiledGraph>();

  async function rgdSnapshot(
    reader: TreeReader,
    rgd: KubeObject,
    graphs: Map<string, CompiledGraph>,
  ): Promise<RgdSnapshot> {
    const name = rgd.metadata?.name ?? "";
    const kind = reader.servedBy(name);
    if (kind === undefined)
      return { rgd, compileError: "its spec names no instance kind", scope: "-", instances: ok([]) };
    let namespaced: boolean;
    try {
      namespaced = (await client.resourceFor(kind.apiVersion, kind.kind)).namespaced;
    } catch {
      return { rgd, scope: "-", instances: ok([]) }; // its CRD is not served (yet): no instances can exist
    }
    let compileError: string | undefined;
    try {
      graphs.set(`${name}@${String(rgd.metadata?.generation ?? 0)}`, await reader.graphOf(name));
    } catch (error) {
      compileError = error instanceof Error ? error.message : String(error);
    }
    const { scope, items } = await listScoped(client, kind.apiVersion, kind.kind, namespaced, options.namespace);
    if (!items.ok)
      return { rgd, kind, ...(compileError === undefined ? {} : { compileError }), scope, instances: items };
    const instances: InstanceSnapshot[] = [];
    for (const [index, object] of items.value.entries()) {
      const tree: Read<InstanceTree> =
        compileError !== undefined
          ? {
              ok: false,
              notPermitted: false,
              message: "its RGD has no graph here (it does not compile, or is not served)",
            }
          : index >= options.maxTrees
            ? {
                ok: false,
                notPermitted: false,
                message: `trees are read for the first ${String(options.maxTrees)} instances (--max-trees)`,
              }
            : await treeOf(reader, kind, object);
      instances.push({ object, tree });
    }
    return { rgd, kind, ...(compileError === undefined ? {} : { compileError }), scope, instances: ok(instances) };
  }

  return {
    async read() {
      const listed = await attempt(
        async () => (await client.list(KRO_API_VERSION, RGD.kind, { labelSelector: options.selector })).items,
      );
      let rgds: Read<readonly RgdSnapshot[]>;
      const kinds = new Set<string>();
      const rgdNames = new Set<string>();
      if (listed.ok) {
        const reader = createTreeReader(client, listed.value, options.graphs(listed.value));
        const graphs = new Map<string, CompiledGraph>();
        const read = await Promise.all(listed.value.map((rgd) => rgdSnapshot(reader, rgd, graphs)));
        pictured = graphs;
        rgds = ok(read);
        for (const r of read) {
          rgdNames.add(r.rgd.metadata?.name ?? "");
          if (r.kind !== undefined) kinds.add(r.kind.kind);
        }
      } else {
        rgds = listed;
        pictured = new Map();
      }
      const listedEvents = await listScoped(client, "v1", "Event", true, options.namespace);
      // Events about what the page shows: its RGDs and their instances (the controller writes its Events there).
      const about = (e: KubeObject): boolean => {
        const involved = (e.involvedObject ?? {}) as { kind?: unknown; name?: unknown };
        return involved.kind === RGD.kind ? rgdNames.has(String(involved.name)) : kinds.has(String(involved.kind));
      };
      const events = listedEvents.items.ok ? ok(listedEvents.items.value.filter(about)) : listedEvents.items;
      return { server: client.server, rgds, events };
    },
    graph(rgdName, generation) {
      return pictured.get(`${rgdName}@${generation}`);
    },
  };
}
