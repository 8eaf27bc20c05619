/**
 * Reads what the web view shows from the cluster with the caller's own client (`kro ui`: the
 * kubeconfig's user; the controller's endpoint: the requesting user's token). The overview costs
 * the RGD list and one list of instances per served kind — no child is read — so it stays cheap at
 * thousands of instances; only an instance's own page reads its tree (as `kro tree` does) and the
 * Events about it. A read the API server refuses is kept as "not permitted" with the server's
 * message — nothing is retried with other rights, and nothing else is read in its place.
 * Read-only: get and list requests only. Compiled graphs come from the caller's `GraphSource`
 * (they are not read from the cluster, and never widen what is shown).
 */
import { KRO_API_VERSION, RGD } from "../../api/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import { ApiError, isForbidden, type KubeClient, type KubeObject } from "../../kube/index.js";
import type { ClusterReads } from "../live-instance.js";
import { createTreeReader, servedKind, apiVersionOf, type GraphSource } from "../tree-reader.js";
import type { InstancePageSnapshot } from "./instance-model.js";
import type { OverviewSnapshot, RgdListing } from "./overview-model.js";
import type { RgdPageSnapshot } from "./rgd-model.js";
import type { Read } from "./view-model.js";

export interface SnapshotOptions {
  /** Label selector for the RGDs shown (default: all). */
  readonly selector?: string;
  /** Show only this namespace's instances and Events (default: all namespaces the caller may list). */
  readonly namespace?: string;
  /** Whose view it is, said next to the API server's address (the controller's signed-in user). */
  readonly as?: string;
  /** Where the graphs of the RGDs just listed come from (the CLI compiles them; the controller serves them). */
  readonly graphs: (rgds: readonly KubeObject[]) => GraphSource;
  /** How children placed in member clusters are read (with the asker's rights on their registrations); absent: the hub only. */
  readonly clusters?: ClusterReads;
}

export interface SnapshotReader {
  /** The RGDs and their instances (in `namespace` when given and the reader is not fixed to one). */
  overview(namespace?: string): Promise<OverviewSnapshot>;
  rgdPage(rgdName: string, namespace?: string): Promise<RgdPageSnapshot>;
  instancePage(rgdName: string, namespace: string | undefined, name: string): Promise<InstancePageSnapshot>;
  /** The compiled graph of an RGD the last read listed (for its picture): none for an RGD it did not list. */
  graph(rgdName: string, generation: string): Promise<CompiledGraph | undefined>;
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

interface ListOptions {
  readonly fieldSelector?: string;
}

/**
 * A list over all namespaces, or — when that is refused and the kind is namespaced — over the
 * one namespace the client names (a tenant's usual rights). The scope says which one it was.
 */
async function listScoped(
  client: KubeClient,
  kind: { apiVersion: string; kind: string; namespaced: boolean },
  namespace: string | undefined,
  options: ListOptions = {},
): Promise<{ scope: string; items: Read<KubeObject[]> }> {
  const list = (ns?: string): Promise<Read<KubeObject[]>> =>
    attempt(async () => (await client.list(kind.apiVersion, kind.kind, { ...options, namespace: ns })).items);
  if (!kind.namespaced) return { scope: "the cluster", items: await list() };
  if (namespace !== undefined) return { scope: `namespace ${namespace}`, items: await list(namespace) };
  const all = await list();
  if (all.ok || !all.notPermitted) return { scope: "all namespaces", items: all };
  const own = client.defaultNamespace;
  return { scope: `namespace ${own} (listing all namespaces is not permitted)`, items: await list(own) };
}

const nameOf = (o: KubeObject): string => o.metadata?.name ?? "";

export function createSnapshotReader(client: KubeClient, options: SnapshotOptions): SnapshotReader {
  const server = options.as === undefined ? client.server : `${client.server} · as ${options.as}`;
  // Only what the asker's last RGD list held: a picture is never drawn for another RGD.
  let listed: readonly KubeObject[] = [];
  let graphs: GraphSource | undefined;
  const scopeOf = (asked: string | undefined): string | undefined => options.namespace ?? asked;

  async function listRgds(): Promise<Read<KubeObject[]>> {
    const read = await attempt(
      async () => (await client.list(KRO_API_VERSION, RGD.kind, { labelSelector: options.selector })).items,
    );
    listed = read.ok ? read.value : [];
    graphs = read.ok ? options.graphs(read.value) : undefined;
    return read;
  }

  async function listingOf(rgd: KubeObject, namespace: string | undefined): Promise<RgdListing> {
    const served = servedKind(rgd);
    if (served === undefined) return { rgd, scope: "-", instances: ok([]) };
    const kind = { apiVersion: apiVersionOf(served.group, served.version), kind: served.kind };
    let namespaced: boolean;
    try {
      namespaced = (await client.resourceFor(kind.apiVersion, kind.kind)).namespaced;
    } catch {
      return { rgd, scope: "-", instances: ok([]) }; // its CRD is not served (yet): no instances can exist
    }
    const { scope, items } = await listScoped(client, { ...kind, namespaced }, namespace);
    return { rgd, kind, scope, instances: items };
  }

  async function overview(namespace?: string, only?: string): Promise<OverviewSnapshot> {
    const rgds = await listRgds();
    if (!rgds.ok) return { server, rgds };
    const shown = only === undefined ? rgds.value : rgds.value.filter((r) => nameOf(r) === only);
    return { server, rgds: ok(await Promise.all(shown.map((rgd) => listingOf(rgd, scopeOf(namespace))))) };
  }

  /** Events about one object, by field selector (the API server filters; the asker's rights decide). */
  async function eventsAbout(kind: string, namespace: string | undefined, name: string): Promise<Read<KubeObject[]>> {
    const fieldSelector = `involvedObject.kind=${kind},involvedObject.name=${name}`;
    const events = { apiVersion: "v1", kind: "Event", namespaced: true };
    return (await listScoped(client, events, namespace ?? scopeOf(undefined), { fieldSelector })).items;
  }

  async function compileError(rgd: KubeObject | undefined): Promise<string | undefined> {
    if (rgd === undefined || graphs === undefined) return undefined;
    try {
      await graphs(rgd);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  return {
    overview: (namespace) => overview(namespace),
    async rgdPage(rgdName, namespace) {
      const snapshot = await overview(namespace, rgdName);
      const rgd = listed.find((r) => nameOf(r) === rgdName);
      const error = await compileError(rgd);
      return {
        rgdName,
        overview: snapshot,
        ...(error === undefined ? {} : { compileError: error }),
        events: rgd === undefined ? ok([]) : await eventsAbout(RGD.kind, undefined, rgdName),
      };
    },
    async instancePage(rgdName, namespace, name) {
      const rgds = await listRgds();
      const rgd = listed.find((r) => nameOf(r) === rgdName);
      const base = { server, rgdName, ...(namespace === undefined ? {} : { namespace }), name };
      const served = rgd === undefined ? undefined : servedKind(rgd);
      if (!rgds.ok || rgd === undefined || served === undefined || graphs === undefined) {
        const why: Read<never> = rgds.ok
          ? { ok: false, notPermitted: false, message: `no ResourceGraphDefinition ${rgdName} is listed for you` }
          : rgds;
        return { ...base, object: why, tree: why, events: why };
      }
      const apiVersion = apiVersionOf(served.group, served.version);
      const object = await attempt(() => client.get({ apiVersion, kind: served.kind, namespace, name }));
      if (!object.ok) return { ...base, rgd, object, tree: object, events: object };
      const reader = createTreeReader(client, rgds.value, graphs, options.clusters);
      const [tree, events] = await Promise.all([
        attempt(() => reader.read(apiVersion, served.kind, namespace, name)),
        eventsAbout(served.kind, namespace, name),
      ]);
      return { ...base, rgd, object, tree, events };
    },
    async graph(rgdName, generation) {
      const rgd = listed.find((r) => nameOf(r) === rgdName && String(r.metadata?.generation ?? 0) === generation);
      if (rgd === undefined || graphs === undefined) return undefined;
      try {
        return await graphs(rgd);
      } catch {
        return undefined;
      }
    },
  };
}
