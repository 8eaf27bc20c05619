/**
 * Prune and deletion plans over the controller's inventory (docs/reference/kro-reference.md §6.9,
 * §6.12). Both delete dependents before what they depend on: the highest apply-order wave first.
 * Entries of nodes the graph no longer has come first (nothing in the current graph depends on
 * them).
 */
import { labelValue } from "../api/index.js";
import type { CompiledGraph } from "../graph/index.js";
import { identityKey, identityOf } from "./identity.js";
import type { InstanceEvaluation, InventoryEntry } from "./types.js";

const UNKNOWN_WAVE = Number.POSITIVE_INFINITY;

/**
 * The graph's nodes by the id an inventory entry names: the node id, or — for an entry written
 * from a child's node-id label — that label, which shortens ids longer than a label may be.
 */
export function nodesByRecordedId(graph: Pick<CompiledGraph, "nodes">): Map<string, CompiledGraph["nodes"][number]> {
  return new Map(graph.nodes.flatMap((n) => [[labelValue(n.id), n] as const, [n.id, n] as const]));
}

function inWaves(graph: CompiledGraph, entries: readonly InventoryEntry[]): InventoryEntry[][] {
  const nodes = nodesByRecordedId(graph);
  const byWave = new Map<number, InventoryEntry[]>();
  for (const entry of entries) {
    const wave = nodes.get(entry.nodeId)?.wave ?? UNKNOWN_WAVE;
    byWave.set(wave, [...(byWave.get(wave) ?? []), entry]);
  }
  return [...byWave.entries()].sort((a, b) => b[0] - a[0]).map(([, wave]) => wave);
}

/** Every inventory entry, in deletion waves (instance deletion). */
export function deletionPlan(graph: CompiledGraph, inventory: readonly InventoryEntry[]): InventoryEntry[][] {
  return inWaves(graph, inventory);
}

/**
 * The inventory entries this evaluation no longer wants (excluded, removed from the graph, forEach
 * shrank, renamed), in deletion waves. Never on partial knowledge: a pending or failed pass could
 * be missing objects that are still wanted, so it prunes nothing.
 */
export function prunePlan(
  graph: CompiledGraph,
  inventory: readonly InventoryEntry[],
  evaluation: InstanceEvaluation,
): InventoryEntry[][] {
  if (evaluation.pending || evaluation.error !== undefined) return [];
  const desired = new Set(
    evaluation.apply.flatMap((o) => {
      const identity = identityOf(o);
      return identity === undefined ? [] : [identityKey(identity)];
    }),
  );
  // Kept without being applied (a Helm install hook after the install): wanted all the same.
  for (const node of evaluation.nodes) for (const identity of node.retained ?? []) desired.add(identityKey(identity));
  return inWaves(
    graph,
    inventory.filter((entry) => !desired.has(identityKey(entry))),
  );
}
