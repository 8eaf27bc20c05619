/**
 * What a chart (spec.helm) sees of the cluster in the controller (helm-import.md, "lookup and
 * .Capabilities on a cluster"): the capabilities (helm-capabilities.ts) and the rules `lookup` runs
 * under: the scope of each declared lookup kind, and the RGD's containment opt-ins. A CRD
 * change refreshes discovery and re-renders the charts that read `.Capabilities`, so an
 * `if .Capabilities.APIVersions.Has` branch follows the cluster.
 */
import { DEFAULT_CONTAINMENT, type CompiledGraph } from "../../graph/index.js";
import type { HelmCapabilities, HelmClusterOptions, RuntimeOptions } from "../../runtime/index.js";
import type { ControllerContext } from "../context/controller-context.js";
import { enqueueInstances } from "../rgd/instance-kinds.js";
import type { ServedGraph } from "../context/served-graphs.js";

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
    capabilities = await ctx.helmCluster.capabilities();
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
