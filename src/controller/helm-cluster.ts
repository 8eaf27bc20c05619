/**
 * What a chart (spec.helm) sees of the cluster in the controller (helm-import.md, "lookup and
 * .Capabilities on a cluster"): `.Capabilities.KubeVersion` from the API server's /version and
 * `.Capabilities.APIVersions` from discovery (Helm's GetVersionSet: every group/version and every
 * group/version/Kind), rebuilt only when discovery was refreshed — and the rules `lookup` runs
 * under: the scope of each declared lookup kind, and the RGD's containment opt-ins. A CRD
 * change refreshes discovery and re-renders the charts that read `.Capabilities`, so an
 * `if .Capabilities.APIVersions.Has` branch follows the cluster.
 */
import { DEFAULT_CONTAINMENT, type CompiledGraph } from "../graph/index.js";
import type { KubeClient } from "../kube/index.js";
import { DEFAULT_KUBE_VERSION, type HelmCapabilities, type HelmClusterOptions, type RuntimeOptions } from "../runtime/index.js";
import type { ControllerContext } from "./controller-context.js";
import { enqueueInstances } from "./instance-kinds.js";
import type { ServedGraph } from "./served-graphs.js";

/** Per controller: the server version (asked once) and the capabilities of the last discovery snapshot. */
export class HelmClusterCache {
  private version: Promise<string> | undefined;
  private last: { readonly refreshes: number; readonly value: HelmCapabilities } | undefined;

  constructor(private readonly client: KubeClient) {}

  async capabilities(): Promise<HelmCapabilities> {
    const kubeVersion = await (this.version ??= this.client.getPath<{ gitVersion?: unknown }>("/version").then(
      (v) => (typeof v.gitVersion === "string" && v.gitVersion !== "" ? v.gitVersion : DEFAULT_KUBE_VERSION),
      (error: unknown) => {
        this.version = undefined; // asked again next time
        throw error;
      },
    ));
    const resources = await this.client.discovery.all();
    const refreshes = this.client.discovery.refreshes;
    // The same object while discovery is unchanged: a chart render is reused by its identity.
    if (this.last?.refreshes === refreshes && this.last.value.kubeVersion === kubeVersion) return this.last.value;
    const versions = new Set<string>();
    for (const r of resources) {
      const gv = r.group === "" ? r.version : `${r.group}/${r.version}`;
      versions.add(gv);
      versions.add(`${gv}/${r.kind}`);
    }
    const value: HelmCapabilities = { kubeVersion, apiVersions: [...versions].sort() };
    this.last = { refreshes, value };
    return value;
  }
}

const usesCapabilities = (graph: CompiledGraph): boolean =>
  graph.dialect === "template" && graph.helm !== undefined && Object.values(graph.helm.templates).some((t) => t.includes(".Capabilities"));

/**
 * The runtime options of one instance reconcile, with the chart's cluster view when the graph has
 * spec.helm. Capabilities that cannot be read (no /version, discovery failing) fall back to
 * spec.helm's offline values rather than failing the reconcile.
 */
export async function withHelmCluster(ctx: ControllerContext, served: ServedGraph, options: RuntimeOptions): Promise<RuntimeOptions> {
  const graph = served.graph;
  if (graph.dialect !== "template" || graph.helm === undefined) return options;
  let capabilities: HelmCapabilities | undefined;
  try {
    capabilities = await (ctx.helmCluster ?? new HelmClusterCache(ctx.client)).capabilities();
  } catch {
    capabilities = undefined;
  }
  const scopes = new Map<string, boolean>();
  for (const site of graph.helm.lookups ?? []) {
    const key = `${site.apiVersion}/${site.kind}`;
    if (scopes.has(key)) continue;
    try {
      scopes.set(key, (await ctx.client.resourceFor(site.apiVersion, site.kind)).namespaced);
    } catch {
      // Not served: a lookup of it fails the render with Helm's error.
    }
  }
  const policy = served.containment ?? DEFAULT_CONTAINMENT;
  const helm: HelmClusterOptions = {
    ...(capabilities === undefined ? {} : { capabilities }),
    lookups: {
      namespaced: (apiVersion, kind) => scopes.get(`${apiVersion}/${kind}`),
      allowCrossNamespace: policy.allowCrossNamespace,
      allowClusterScoped: policy.allowClusterScoped,
    },
  };
  return { ...options, helm };
}

/**
 * A CRD was added, changed or removed (after the initial sync): discovery is stale, and every
 * instance of a chart that reads `.Capabilities` may render differently. Nothing happens for
 * controllers serving no such chart.
 */
export function onCrdChange(ctx: ControllerContext): void {
  const readers = ctx.served.all().filter((s) => usesCapabilities(s.graph));
  if (readers.length === 0) return;
  ctx.client.discovery.invalidate();
  for (const served of readers) enqueueInstances(ctx, served.rgdName);
}
