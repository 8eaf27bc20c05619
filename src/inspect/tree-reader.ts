/**
 * Reads instances' trees from a cluster with the caller's client: finds the RGD that serves a
 * kind, gets its compiled graph from a `GraphSource` (the CLI compiles against the live
 * cluster's schemas; the controller hands over the graph it serves), evaluates the instance the
 * way the controller does (live-instance.ts), and expands every child that is itself an instance
 * of an RGD (in the hub; one in another cluster is listed, not expanded). Children in other
 * registered clusters are read there through `clusters`, reached with the caller's own rights.
 * Read-only: only get and list requests.
 */
import type { CompiledGraph } from "../graph/index.js";
import type { KubeClient, KubeObject } from "../kube/index.js";
import { clusterOf } from "../runtime/index.js";
import { evaluateLiveInstance, type ClusterReads } from "./live-instance.js";
import { instanceTreeOf, type InstanceTree } from "./tree-model.js";

/** Nested instances deeper than this are listed, not expanded (a cycle of RGDs cannot loop us). */
const MAX_DEPTH = 8;

export interface ServedKind {
  readonly rgd: KubeObject;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** A tree that cannot be read for a reason of the request (no RGD serves the kind), not of the cluster. */
export class TreeReadError extends Error {
  override readonly name = "TreeReadError";
}

/**
 * The compiled graph of an RGD (as listed by the caller); rejects with the reason when there is
 * none (it does not compile, or the controller does not serve it).
 */
export type GraphSource = (rgd: KubeObject) => Promise<CompiledGraph>;

export const apiVersionOf = (group: string, version: string): string =>
  group === "" ? version : `${group}/${version}`;

/** The instance kind an RGD serves, in either dialect. */
export function servedKind(rgd: KubeObject): ServedKind | undefined {
  const spec = (rgd.spec ?? {}) as {
    schema?: { apiVersion?: unknown; kind?: unknown; group?: unknown };
    resourceKind?: { group?: unknown; version?: unknown; kind?: unknown };
  };
  if (spec.resourceKind !== undefined) {
    const { group, version, kind } = spec.resourceKind;
    if (typeof kind === "string" && typeof version === "string")
      return { rgd, group: typeof group === "string" ? group : "", version, kind };
    return undefined;
  }
  const { apiVersion, kind, group } = spec.schema ?? {};
  if (typeof kind !== "string" || typeof apiVersion !== "string") return undefined;
  return { rgd, group: typeof group === "string" && group !== "" ? group : "kro.run", version: apiVersion, kind };
}

/** The apiVersions of every child an RGD's spec names (what a schema resolver must know). */
export function childApiVersionsOf(rgds: readonly KubeObject[]): string[] {
  const found = new Set<string>();
  for (const rgd of rgds) {
    const spec = (rgd.spec ?? {}) as { resources?: unknown; childResources?: unknown };
    for (const list of [spec.resources, spec.childResources]) {
      if (!Array.isArray(list)) continue;
      for (const entry of list as {
        apiVersion?: unknown;
        template?: { apiVersion?: unknown };
        externalRef?: { apiVersion?: unknown };
      }[]) {
        const apiVersion = entry.apiVersion ?? entry.template?.apiVersion ?? entry.externalRef?.apiVersion;
        if (typeof apiVersion === "string") found.add(apiVersion);
      }
    }
  }
  return [...found];
}

/** A compiled graph stays valid while the RGD's spec does: its name and metadata.generation (status writes do not change it). */
export const graphCacheKey = (rgd: KubeObject): string =>
  `${rgd.metadata?.name ?? ""}@${String(rgd.metadata?.generation ?? "")}`;

export interface TreeReader {
  /** The kinds the RGDs read serve. */
  readonly served: readonly ServedKind[];
  read(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<InstanceTree>;
  /** The instance kind an RGD (one of those read) serves, if its spec names one. */
  servedBy(rgdName: string): { apiVersion: string; kind: string } | undefined;
  /** The RGD's compiled graph from the source; rejects when there is none. */
  graphOf(rgdName: string): Promise<CompiledGraph>;
}

/** A reader over these RGDs (listed by the caller, with the caller's rights). */
export function createTreeReader(
  client: KubeClient,
  rgds: readonly KubeObject[],
  graphs: GraphSource,
  clusters?: ClusterReads,
): TreeReader {
  const served = rgds.flatMap((rgd) => servedKind(rgd) ?? []);
  const entryFor = (apiVersion: string, kind: string): ServedKind | undefined =>
    served.find((s) => apiVersionOf(s.group, s.version) === apiVersion && s.kind === kind);

  async function read(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    name: string,
    depth: number,
    seen: Set<string>,
  ): Promise<InstanceTree> {
    const entry = entryFor(apiVersion, kind);
    if (entry === undefined) throw new TreeReadError(`no ResourceGraphDefinition serves ${kind} (${apiVersion})`);
    const graph = await graphs(entry.rgd);
    const live = await evaluateLiveInstance(client, graph, namespace, name, clusters);
    const uid = live.instance.metadata?.uid;
    if (uid !== undefined) seen.add(uid);
    const nested = new Map<string, InstanceTree>();
    if (depth < MAX_DEPTH) {
      for (const node of live.evaluation.nodes) {
        for (const object of node.observed) {
          const meta = (object.metadata ?? {}) as { uid?: string; name?: string; namespace?: string };
          const childApiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
          const childKind = typeof object.kind === "string" ? object.kind : "";
          if (
            meta.uid === undefined ||
            meta.name === undefined ||
            seen.has(meta.uid) ||
            clusterOf(object) !== undefined ||
            entryFor(childApiVersion, childKind) === undefined
          )
            continue;
          nested.set(meta.uid, await read(childApiVersion, childKind, meta.namespace, meta.name, depth + 1, seen));
        }
      }
    }
    return instanceTreeOf(graph, live.instance, live.evaluation, nested, live.unreadable);
  }

  return {
    served,
    read: (apiVersion, kind, namespace, name) => read(apiVersion, kind, namespace, name, 0, new Set()),
    servedBy(rgdName) {
      const entry = served.find((s) => s.rgd.metadata?.name === rgdName);
      return entry === undefined
        ? undefined
        : { apiVersion: apiVersionOf(entry.group, entry.version), kind: entry.kind };
    },
    async graphOf(rgdName) {
      const entry = served.find((s) => s.rgd.metadata?.name === rgdName);
      if (entry === undefined) throw new TreeReadError(`ResourceGraphDefinition ${rgdName} names no instance kind`);
      return graphs(entry.rgd);
    },
  };
}
