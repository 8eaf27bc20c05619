/**
 * A chart rendered against the cluster (helm-import.md, "lookup and .Capabilities on a cluster"):
 * Helm's `lookup` answered synchronously from what the caller observes (the controller's
 * informer caches and its own writes, through the ObservedLookup port), with Helm's results — the
 * object, a `<Kind>List` for name "", `{}` when absent — and the tenant rules: only kinds the
 * chart declares (a literal `lookup "v1" "Secret" …` in its templates), in the instance's own
 * namespace unless the RGD opts in to other namespaces or cluster-scoped kinds. A refused lookup
 * throws, so the render fails with the template and line of the call and nothing is applied.
 *
 * Every read is recorded as an external request: the controller starts a watch for exactly that
 * scope and evaluates again, so the first apply already sees what exists, and a change of a
 * looked-up object wakes the instance.
 */
import { isDeclaredLookup, type CompiledGraph, type HelmLookupSite } from "../../graph/index.js";
import { ANNOTATIONS } from "../../api/index.js";
import { isRecord, metadataOf } from "../identity.js";
import type {
  CollectionQuery,
  HelmRenderEnv,
  ExternalRequest,
  HelmClusterOptions,
  HelmLookupAccess,
  KubeJson,
  ObjectIdentity,
  ObservedLookup,
} from "../types.js";

/**
 * Distinct objects or lists one render may look up. Each is a watch the controller keeps while
 * the instance reads it; values can drive a `range` of lookups, so an instance author must not
 * be able to open thousands.
 */
export const MAX_LOOKUPS_PER_RENDER = 64;

const quoted = (s: string): string => JSON.stringify(s);
const text = (v: unknown): string => (typeof v === "string" ? v : "");

/** Helm's lookup semantics over the port, under the rules; records every scope it reads. */
function answer(
  access: HelmLookupAccess,
  sites: readonly HelmLookupSite[],
  home: string | undefined,
  observed: ObservedLookup,
  record: (r: ObjectIdentity | CollectionQuery) => void,
  call: readonly [string, string, string, string],
): KubeJson {
  const [apiVersion, kind, namespace, name] = call;
  const what = `lookup ${quoted(apiVersion)} ${quoted(kind)} ${quoted(namespace)} ${quoted(name)}`;
  if (!isDeclaredLookup(sites, apiVersion, kind)) {
    throw new Error(
      `${what} refused: no template of the chart declares a lookup of ${kind} (${apiVersion}); only lookups written with a literal apiVersion and kind may read the cluster, so a kind chosen by values or tpl cannot`,
    );
  }
  const namespaced = access.namespaced(apiVersion, kind);
  // Helm's own error when discovery does not know the kind.
  if (namespaced === undefined)
    throw new Error(
      `${what}: unable to get apiresource from unstructured: ${kind} (${apiVersion}) is not served by the cluster`,
    );
  if (namespaced) {
    // Helm GETs a namespaced kind without a namespace: the API server answers 404, lookup {}.
    if (name !== "" && namespace === "") return {};
    const where = namespace === "" ? undefined : namespace;
    if (home !== undefined && where !== home && !access.allowCrossNamespace) {
      const scope = where === undefined ? "in all namespaces" : `in namespace ${quoted(where)}`;
      throw new Error(
        `${what} refused: it reads ${kind} ${scope}, outside the instance's namespace ${quoted(home)}, and the ResourceGraphDefinition does not opt in with the annotation ${ANNOTATIONS.allowCrossNamespace}: "true"`,
      );
    }
    return read(observed, record, apiVersion, kind, where, name);
  }
  if (home !== undefined && !access.allowClusterScoped) {
    throw new Error(
      `${what} refused: ${kind} is cluster-scoped and the ResourceGraphDefinition does not opt in with the annotation ${ANNOTATIONS.allowClusterScoped}: "true"`,
    );
  }
  return read(observed, record, apiVersion, kind, undefined, name);
}

function read(
  observed: ObservedLookup,
  record: (r: ObjectIdentity | CollectionQuery) => void,
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): KubeJson {
  const ns = namespace === undefined ? {} : { namespace };
  if (name !== "") {
    const identity: ObjectIdentity = { apiVersion, kind, name, ...ns };
    record(identity);
    return observed.get(identity) ?? {};
  }
  const query: CollectionQuery = { apiVersion, kind, matchLabels: {}, ...ns };
  record(query);
  const key = (o: KubeJson) => `${text(metadataOf(o).namespace)}/${text(metadataOf(o).name)}`;
  const items = [...observed.list(query)].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  // The dynamic client's UnstructuredList, as Helm returns it (the list's own resourceVersion is not known from a cache).
  return { apiVersion, kind: `${kind}List`, metadata: {}, items };
}

/** The chart environment of one pass; undefined for graphs without spec.helm or without cluster options. */
export function helmRenderEnv(
  graph: CompiledGraph,
  instance: KubeJson,
  observed: ObservedLookup,
  options: HelmClusterOptions | undefined,
  externals: ExternalRequest[],
): HelmRenderEnv | undefined {
  if (graph.dialect !== "template" || graph.helm === undefined || options === undefined) return undefined;
  const access = options.lookups;
  const capabilities = {
    ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities }),
    ...(options.render === undefined ? {} : { render: options.render }),
  };
  if (access === undefined) return capabilities;
  const sites = graph.helm.lookups ?? [];
  // The whole chart renders as one: every manifests child depends on what any lookup read.
  const nodeIds = graph.nodes.filter((n) => n.templateSource?.manifests !== undefined).map((n) => n.id);
  const namespace = metadataOf(instance).namespace;
  const home = typeof namespace === "string" && namespace !== "" ? namespace : undefined;
  const source = options.lookupFrom ?? observed;
  const seen = new Set<string>();
  const record = (request: ObjectIdentity | CollectionQuery): void => {
    const key = JSON.stringify(request);
    if (seen.has(key)) return;
    if (seen.size >= MAX_LOOKUPS_PER_RENDER)
      throw new Error(
        `too many lookups: one render may read at most ${MAX_LOOKUPS_PER_RENDER} distinct objects or lists (each is watched while the instance reads it)`,
      );
    seen.add(key);
    for (const nodeId of nodeIds) externals.push({ nodeId, request });
  };
  return {
    ...capabilities,
    lookup: (apiVersion, kind, ns, name) => answer(access, sites, home, source, record, [apiVersion, kind, ns, name]),
  };
}

/** What identifies an answer: object uid and resourceVersion (items' for a list), or absence. */
export function answerFingerprint(answer: KubeJson): string {
  const one = (o: unknown): string => {
    const metadata = isRecord(o) && isRecord(o.metadata) ? o.metadata : {};
    return `${text(metadata.uid)}@${typeof metadata.resourceVersion === "string" ? metadata.resourceVersion : JSON.stringify(o)}`;
  };
  if (Array.isArray(answer.items)) return `list:${answer.items.map(one).join(",")}`;
  return Object.keys(answer).length === 0 ? "absent" : one(answer);
}
