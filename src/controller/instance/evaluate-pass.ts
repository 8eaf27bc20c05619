/**
 * One evaluation pass of an instance in the controller: where the controller routes passes
 * (isolation/evaluation-route.ts: the main thread for a slice, the evaluation pool beyond it),
 * or here when it routes none (unit tests with a bare context).
 */
import type { CompiledGraph } from "../../graph/index.js";
import {
  evaluateInstance,
  type InstanceEvaluation,
  type KubeJson,
  type ObservedLookup,
  type RuntimeOptions,
} from "../../runtime/index.js";
import type { InstanceContext } from "./instance-context.js";

export function evaluatePass(
  ctx: Pick<InstanceContext, "evaluations">,
  key: string,
  graph: CompiledGraph,
  instance: KubeJson,
  lookup: ObservedLookup,
  options: RuntimeOptions,
): Promise<InstanceEvaluation> {
  if (ctx.evaluations === undefined) return Promise.resolve(evaluateInstance(graph, instance, lookup, options));
  const namespace = (instance.metadata as { namespace?: string } | undefined)?.namespace ?? "";
  return ctx.evaluations.evaluate({ key, flow: namespace, graph, instance, lookup, options });
}
