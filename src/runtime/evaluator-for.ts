/**
 * Picks the expression language of a graph: CEL (`${…}`) or the seed's Go templates.
 */
import type { CompiledGraph } from "../graph/index.js";
import { createCelEvaluator } from "./cel/index.js";
import type { DialectEvaluator } from "./dialect.js";
import { createTemplateEvaluator } from "./template-dialect/index.js";
import type { ProductLimits } from "./for-each.js";

/** One entry per dialect. The template evaluator is stateless (its parse cache is keyed by node). */
const FACTORIES: Record<CompiledGraph["dialect"], (graph: CompiledGraph, limits: ProductLimits) => DialectEvaluator> = {
  cel: createCelEvaluator,
  template: (graph) => createTemplateEvaluator(graph),
};

const cache = new WeakMap<CompiledGraph, Map<string, DialectEvaluator>>();

export function evaluatorFor(graph: CompiledGraph, limits: ProductLimits = {}): DialectEvaluator {
  const key = `${limits.maxCollectionSize ?? ""}/${limits.maxCollectionDimensions ?? ""}`;
  let perGraph = cache.get(graph);
  if (perGraph === undefined) {
    perGraph = new Map();
    cache.set(graph, perGraph);
  }
  let evaluator = perGraph.get(key);
  if (evaluator === undefined) {
    evaluator = FACTORIES[graph.dialect](graph, limits);
    perGraph.set(key, evaluator);
  }
  return evaluator;
}
