/**
 * A child kind the controller cannot watch (not served by the cluster, or not granted) matters
 * only to a node that wants objects of it now or still has children of it on record. A chart
 * template the values turn off — a ServiceMonitor, a Certificate, an HTTPRoute behind a flag —
 * renders nothing and needs nothing from the cluster, as with `helm install`:
 * its kind being absent is no error on the instance, blocks no pruning and asks for no retry.
 * What a node reads (an externalRef, a chart's lookups) is needed whatever it renders.
 */
import type { CompiledGraph } from "../../graph/index.js";
import type { InstanceEvaluation } from "../../runtime/index.js";
import { nodeIdOf } from "./apply-plan.js";
import type { Inventory } from "./inventory.js";

/**
 * @param watchErrors every reason a node cannot be served this pass, by node id
 * @param kindErrors the subset that only says the node's own kind cannot be watched (child-watches)
 *   — a scope a chart's lookups or an externalRef read is always needed, and so always kept
 */
export function relevantWatchErrors(
  graph: Pick<CompiledGraph, "nodes">,
  watchErrors: ReadonlyMap<string, string>,
  kindErrors: ReadonlyMap<string, string>,
  evaluation: Pick<InstanceEvaluation, "apply">,
  inventory: Pick<Inventory, "entries">,
): Map<string, string> {
  if (watchErrors.size === 0) return new Map();
  const written = new Set(graph.nodes.filter((n) => n.type === "resource" || n.type === "collection").map((n) => n.id));
  const needed = new Set([...evaluation.apply.map(nodeIdOf), ...inventory.entries.map((e) => e.nodeId)]);
  const droppable = (nodeId: string, reason: string) =>
    written.has(nodeId) && kindErrors.get(nodeId) === reason && !needed.has(nodeId);
  return new Map([...watchErrors].filter(([nodeId, reason]) => !droppable(nodeId, reason)));
}
