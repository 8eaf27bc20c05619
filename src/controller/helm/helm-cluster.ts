/**
 * What a chart (spec.helm) sees of the cluster in the controller (helm-import.md, "lookup and
 * .Capabilities on a cluster"): the capabilities (helm-capabilities.ts) and the rules `lookup` runs
 * under: the scope of each declared lookup kind, and the RGD's containment opt-ins. A CRD
 * change refreshes discovery and re-renders the charts that read `.Capabilities`, so an
 * `if .Capabilities.APIVersions.Has` branch follows the cluster (rgd/capability-readers.ts).
 */
import { DEFAULT_CONTAINMENT, type CompiledGraph, type ContainmentPolicy } from "../../graph/index.js";
import type { HelmCapabilities, HelmClusterOptions, RuntimeOptions } from "../../runtime/index.js";
import type { KubeClient } from "../../kube/index.js";
import type { HelmClusterCache } from "./helm-capabilities.js";

/** What a chart's cluster view is read from. */
export interface HelmClusterSource {
  readonly client: Pick<KubeClient, "resourceFor">;
  readonly helmCluster: HelmClusterCache;
}

/**
 * The runtime options of one instance reconcile, with the chart's cluster view when the graph has
 * spec.helm. Capabilities that cannot be read (no /version, discovery failing) fall back to
 * spec.helm's offline values rather than failing the reconcile.
 */
export async function withHelmCluster(
  cluster: HelmClusterSource,
  served: { readonly graph: CompiledGraph; readonly containment?: ContainmentPolicy | undefined },
  options: RuntimeOptions,
): Promise<RuntimeOptions> {
  const graph = served.graph;
  if (graph.dialect !== "template" || graph.helm === undefined) return options;
  let capabilities: HelmCapabilities | undefined;
  try {
    capabilities = await cluster.helmCluster.capabilities();
  } catch {
    capabilities = undefined;
  }
  const scopes = new Map<string, boolean>();
  for (const site of graph.helm.lookups ?? []) {
    const key = `${site.apiVersion}/${site.kind}`;
    if (scopes.has(key)) continue;
    try {
      scopes.set(key, (await cluster.client.resourceFor(site.apiVersion, site.kind)).namespaced);
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
