/**
 * A child kind the controller cannot watch (not served by the cluster, or not granted) matters
 * only to a node that wants objects of it now or still has children of it on record. A chart
 * template the values turn off — a ServiceMonitor, a Certificate, an HTTPRoute behind a flag —
 * renders nothing and needs nothing from the cluster, as with `helm install` (issue #25, point 1):
 * its kind being absent is no error on the instance, blocks no pruning and asks for no retry.
 */
import type { InstanceEvaluation } from "../../runtime/index.js";
import { nodeIdOf } from "./apply-plan.js";
import type { Inventory } from "./inventory.js";

export function relevantWatchErrors(watchErrors: ReadonlyMap<string, string>, evaluation: Pick<InstanceEvaluation, "apply">, inventory: Pick<Inventory, "entries">): Map<string, string> {
  if (watchErrors.size === 0) return new Map();
  const needed = new Set([...evaluation.apply.map(nodeIdOf), ...inventory.entries.map((e) => e.nodeId)]);
  return new Map([...watchErrors].filter(([nodeId]) => needed.has(nodeId)));
}
