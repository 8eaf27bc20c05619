/**
 * Charts that read `.Capabilities` render differently when the cluster's API changes: after the
 * initial sync, a CRD added, changed or removed invalidates discovery and re-enqueues every
 * instance of such a chart (helm-import.md, "lookup and .Capabilities on a cluster"). Nothing
 * happens for controllers serving no such chart.
 */
import type { CompiledGraph } from "../../graph/index.js";
import type { ControllerContext } from "../context/index.js";
import { enqueueInstances } from "./instance-kinds.js";

const usesCapabilities = (graph: CompiledGraph): boolean =>
  graph.dialect === "template" &&
  graph.helm !== undefined &&
  Object.values(graph.helm.templates).some((t) => t.includes(".Capabilities"));

export function onCrdChange(ctx: ControllerContext): void {
  const readers = ctx.served.all().filter((s) => usesCapabilities(s.graph));
  if (readers.length === 0) return;
  ctx.client.discovery.invalidate();
  for (const served of readers) enqueueInstances(ctx, served.rgdName);
}
