/**
 * The nodes of a graph that another node reads (its dependencies): an answer for one of them can
 * change what another node renders, so it is worth an evaluation of its own (the controller's
 * apply flow). Computed once per graph: compiled graphs are immutable. Pure.
 */
import type { CompiledGraph } from "./compiled-graph.js";

const feedersOf = new WeakMap<CompiledGraph, ReadonlySet<string>>();

export function feedingNodes(graph: CompiledGraph): ReadonlySet<string> {
  let feeders = feedersOf.get(graph);
  if (feeders === undefined) {
    feeders = new Set(graph.nodes.flatMap((node) => node.dependencies));
    feedersOf.set(graph, feeders);
  }
  return feeders;
}
