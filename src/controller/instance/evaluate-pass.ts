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

export interface Pass {
  /** The instance key, by which the route remembers an expensive instance. */
  readonly key: string;
  readonly graph: CompiledGraph;
  readonly instance: KubeJson;
  readonly lookup: ObservedLookup;
  readonly options: RuntimeOptions;
}

export function evaluatePass(ctx: Pick<InstanceContext, "evaluations">, pass: Pass): Promise<InstanceEvaluation> {
  const { graph, instance, lookup, options } = pass;
  if (ctx.evaluations === undefined) return Promise.resolve(evaluateInstance(graph, instance, lookup, options));
  const namespace = (instance.metadata as { namespace?: string } | undefined)?.namespace ?? "";
  return ctx.evaluations.evaluate({ ...pass, flow: namespace });
}
