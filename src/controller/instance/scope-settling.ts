/**
 * Evaluate, watch what the pass read, evaluate again — until a pass names no scope that was not
 * already watched. Pass one of a chart with `lookup` reads only what the caches hold (an unread
 * Secret looks absent); the scopes it asked for are started and synced, and pass two renders
 * with the real answers before anything is applied. A lookup named by another lookup's answer
 * needs one pass per level, so the passes are bounded: a chart whose reads never settle gets an
 * error on its manifests children (nothing of it is applied) instead of a render built on `{}`.
 * CEL external references go through the same loop; they keep their old behaviour past the
 * bound (the instance is simply queued again).
 */
import type { CompiledGraph } from "../../graph/index.js";
import type { InstanceEvaluation } from "../../runtime/index.js";
import type { ControllerContext } from "../context/index.js";

/** Passes after the first: one per level of lookups named by other lookups' answers. */
export const MAX_SCOPE_PASSES = 4;

export async function settleScopes(
  ctx: Pick<ControllerContext, "watches">,
  instanceKey: string,
  graph: CompiledGraph,
  watchErrors: Map<string, string>,
  evaluate: () => Promise<InstanceEvaluation>,
): Promise<InstanceEvaluation> {
  let evaluation = await evaluate();
  for (let pass = 0; ; pass++) {
    const scoped = await ctx.watches.watchExternals(instanceKey, evaluation.externals);
    for (const [nodeId, reason] of scoped.errors) watchErrors.set(nodeId, reason);
    if (!scoped.started) return evaluation;
    if (pass === MAX_SCOPE_PASSES) {
      for (const node of graph.nodes) {
        if (node.templateSource?.manifests === undefined || watchErrors.has(node.id)) continue;
        watchErrors.set(
          node.id,
          `the chart's lookups did not settle: after ${MAX_SCOPE_PASSES + 1} renders each one still read objects the previous one had not (a lookup named by another lookup's answer, changing every time); nothing of the chart is applied`,
        );
      }
      return evaluation;
    }
    evaluation = await evaluate();
  }
}
