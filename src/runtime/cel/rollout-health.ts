/**
 * A rollout's `healthyWhen` (spec.rollout.gate): CEL over the instance as the controller is about
 * to write it, status included (`${schema.status.availableReplicas >= 1}`), all of which must hold
 * besides Ready for the instance to count as healthy at its revision. Typed at compile time
 * against the instance's schema (graph/compile.ts); an expression that cannot be evaluated yet
 * (a field not reported) is "not healthy yet", never an error of the instance.
 */
import { extractExpressions } from "../../expr/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import type { KubeJson } from "../types.js";
import { programsFor } from "./programs.js";
import { instanceSchema, toCel } from "./variables.js";

/** Undefined when every healthyWhen holds (or there is none); otherwise the first that does not, and why. */
export function unmetHealthCheck(graph: CompiledGraph, instance: KubeJson): string | undefined {
  const checks = graph.rollout?.healthyWhen ?? [];
  if (checks.length === 0) return undefined;
  const programs = programsFor(graph);
  const schema = toCel(instance, instanceSchema(graph));
  for (const text of checks) {
    const [segment] = extractExpressions(text).segments;
    if (segment?.kind !== "expression") continue;
    let value: unknown;
    try {
      value = programs.expression(segment.source).evaluate({ schema });
    } catch (error) {
      return `healthyWhen ${text} cannot be evaluated yet: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (value !== true) return `healthyWhen ${text} is ${String(value)}`;
  }
  return undefined;
}
