/**
 * Reads one instance's tree from a cluster for `kro tree`: finds the RGD that serves the kind
 * the user named (kind, plural or `kind.group`), compiles it against the live cluster's schemas,
 * evaluates the instance the way the controller does (live-instance.ts), and expands every child
 * that is itself an instance of an RGD. Read-only: only get and list requests.
 */
import type { CompiledGraph } from "../graph/index.js";
import { compileRgd } from "../graph/index.js";
import { createKroCelEnvironment } from "../expr/index.js";
import { formatIssue, hasErrors } from "../diag/index.js";
import { RGD, KRO_API_VERSION } from "../api/index.js";
import type { KubeClient, KubeObject } from "../kube/index.js";
import { InputError, schemaResolverFor } from "./inputs.js";
import { evaluateLiveInstance } from "./live-instance.js";
import { liveSchemaResolver, type LiveSchemaOptions } from "./live-schemas.js";
import { instanceTreeOf, type InstanceTree } from "./tree-model.js";

/** Nested instances deeper than this are listed, not expanded (a cycle of RGDs cannot loop us). */
const MAX_DEPTH = 8;

interface ServedKind {
  readonly rgd: KubeObject;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

const apiVersionOf = (group: string, version: string): string => (group === "" ? version : `${group}/${version}`);

/** The instance kind an RGD serves, in either dialect. */
function servedKind(rgd: KubeObject): ServedKind | undefined {
  const spec = (rgd.spec ?? {}) as { schema?: { apiVersion?: unknown; kind?: unknown; group?: unknown }; resourceKind?: { group?: unknown; version?: unknown; kind?: unknown } };
  if (spec.resourceKind !== undefined) {
    const { group, version, kind } = spec.resourceKind;
    if (typeof kind === "string" && typeof version === "string") return { rgd, group: typeof group === "string" ? group : "", version, kind };
    return undefined;
  }
  const { apiVersion, kind, group } = spec.schema ?? {};
  if (typeof kind !== "string" || typeof apiVersion !== "string") return undefined;
  return { rgd, group: typeof group === "string" && group !== "" ? group : "kro.run", version: apiVersion, kind };
}

function childApiVersionsOf(rgds: readonly KubeObject[]): string[] {
  const found = new Set<string>();
  for (const rgd of rgds) {
    const spec = (rgd.spec ?? {}) as { resources?: unknown; childResources?: unknown };
    for (const list of [spec.resources, spec.childResources]) {
      if (!Array.isArray(list)) continue;
      for (const entry of list as { apiVersion?: unknown; template?: { apiVersion?: unknown }; externalRef?: { apiVersion?: unknown } }[]) {
        const apiVersion = entry.apiVersion ?? entry.template?.apiVersion ?? entry.externalRef?.apiVersion;
        if (typeof apiVersion === "string") found.add(apiVersion);
      }
    }
  }
  return [...found];
}

export interface TreeReader {
  /** Resolves `kind` as typed on the command line (WebApp, webapps, webapp.kro.run) to the kind an RGD serves. */
  resolveKind(typed: string): Promise<{ apiVersion: string; kind: string; namespaced: boolean }>;
  read(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<InstanceTree>;
  /** The instance kind an RGD (one of those read) serves, if its spec names one. */
  servedBy(rgdName: string): { apiVersion: string; kind: string } | undefined;
  /** The RGD compiled against the live cluster's schemas; throws InputError when it does not compile here. */
  graphOf(rgdName: string): Promise<CompiledGraph>;
}

/** A compiled graph stays valid while the RGD's spec does: its name and metadata.generation (status writes do not change it). */
export const graphCacheKey = (rgd: KubeObject): string => `${rgd.metadata?.name ?? ""}@${String(rgd.metadata?.generation ?? "")}`;

export interface TreeReaderOptions {
  /** The RGDs already listed (`kro ui` lists them itself, with a label selector); default: list them all. */
  readonly rgds?: readonly KubeObject[];
  /** Compiled graphs kept between readers, keyed by `graphCacheKey` (a long-running view). */
  readonly graphCache?: Map<string, CompiledGraph>;
}

export async function createTreeReader(client: KubeClient, schemaOptions: LiveSchemaOptions, options: TreeReaderOptions = {}): Promise<TreeReader> {
  const rgds = options.rgds ?? (await client.list(KRO_API_VERSION, RGD.kind)).items;
  const served = rgds.flatMap((rgd) => servedKind(rgd) ?? []);
  const graphs = options.graphCache ?? new Map<string, CompiledGraph>();
  let resolver: Awaited<ReturnType<typeof schemaResolverFor>> | undefined;

  async function graphOf(entry: ServedKind): Promise<CompiledGraph> {
    const name = entry.rgd.metadata?.name ?? "";
    const cacheKey = graphCacheKey(entry.rgd);
    const known = graphs.get(cacheKey);
    if (known !== undefined) return known;
    resolver ??= await schemaResolverFor(undefined, [], (await liveSchemaResolver(childApiVersionsOf(rgds), schemaOptions)).resolver);
    const result = compileRgd(entry.rgd, { resolver, env: createKroCelEnvironment({ enableRuntime: true }), unknownKinds: "error" });
    if (result.graph === undefined || hasErrors(result.issues)) {
      const first = result.issues.find((i) => i.severity === "error");
      throw new InputError(`ResourceGraphDefinition ${name} does not compile here, so its tree cannot be evaluated: ${first === undefined ? "unknown error" : formatIssue(first)}`);
    }
    graphs.set(cacheKey, result.graph);
    return result.graph;
  }

  const entryFor = (apiVersion: string, kind: string): ServedKind | undefined =>
    served.find((s) => apiVersionOf(s.group, s.version) === apiVersion && s.kind === kind);

  async function read(apiVersion: string, kind: string, namespace: string | undefined, name: string, depth: number, seen: Set<string>): Promise<InstanceTree> {
    const entry = entryFor(apiVersion, kind);
    if (entry === undefined) throw new InputError(`no ResourceGraphDefinition serves ${kind} (${apiVersion})`);
    const graph = await graphOf(entry);
    const live = await evaluateLiveInstance(client, graph, namespace, name);
    const uid = live.instance.metadata?.uid;
    if (uid !== undefined) seen.add(uid);
    const nested = new Map<string, InstanceTree>();
    if (depth < MAX_DEPTH) {
      for (const node of live.evaluation.nodes) {
        for (const object of node.observed) {
          const meta = (object.metadata ?? {}) as { uid?: string; name?: string; namespace?: string };
          const childApiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
          const childKind = typeof object.kind === "string" ? object.kind : "";
          if (meta.uid === undefined || meta.name === undefined || seen.has(meta.uid) || entryFor(childApiVersion, childKind) === undefined) continue;
          nested.set(meta.uid, await read(childApiVersion, childKind, meta.namespace, meta.name, depth + 1, seen));
        }
      }
    }
    return instanceTreeOf(graph, live.instance, live.evaluation, nested);
  }

  return {
    async resolveKind(typed: string) {
      const [kindPart = "", ...groupParts] = typed.split(".");
      const group = groupParts.join(".");
      const lower = kindPart.toLowerCase();
      const candidates: { entry: ServedKind; namespaced: boolean }[] = [];
      for (const entry of served) {
        if (group !== "" && entry.group !== group) continue;
        let info;
        try {
          info = await client.resourceFor(apiVersionOf(entry.group, entry.version), entry.kind);
        } catch {
          continue; // the RGD's CRD is not served (yet): its instances cannot exist
        }
        if (entry.kind.toLowerCase() === lower || info.resource === lower) candidates.push({ entry, namespaced: info.namespaced });
      }
      const [only, second] = candidates;
      if (only === undefined) {
        const known = served.map((s) => `${s.kind}.${s.group}`).sort().join(", ");
        throw new InputError(`no ResourceGraphDefinition serves a kind "${typed}" on ${client.server}${known === "" ? " (no RGDs there)" : ` (served: ${known})`}`);
      }
      if (second !== undefined) throw new InputError(`"${typed}" is ambiguous: ${candidates.map((c) => `${c.entry.kind}.${c.entry.group}`).join(", ")}; name the group (KIND.GROUP/NAME)`);
      return { apiVersion: apiVersionOf(only.entry.group, only.entry.version), kind: only.entry.kind, namespaced: only.namespaced };
    },
    read: (apiVersion, kind, namespace, name) => read(apiVersion, kind, namespace, name, 0, new Set()),
    servedBy(rgdName) {
      const entry = served.find((s) => s.rgd.metadata?.name === rgdName);
      return entry === undefined ? undefined : { apiVersion: apiVersionOf(entry.group, entry.version), kind: entry.kind };
    },
    async graphOf(rgdName) {
      const entry = served.find((s) => s.rgd.metadata?.name === rgdName);
      if (entry === undefined) throw new InputError(`ResourceGraphDefinition ${rgdName} names no instance kind`);
      return graphOf(entry);
    },
  };
}
