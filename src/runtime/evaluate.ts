/**
 * evaluateInstance: one pass over a compiled graph for one instance, in topological order. The
 * controller calls it again after each apply with the responses fed back through the lookup, so
 * a dependency chain converges within one reconcile; `kro render` calls it against files.
 */
import { CostBudget } from "../expr/index.js";
import type { CompiledGraph } from "../graph/index.js";
import { DEFAULT_KRO_VERSION, instanceRef } from "./decorate.js";
import type { EvaluationScope } from "./dialect.js";
import { evaluateNode, type NodeContext } from "./evaluate-node.js";
import { evaluatorFor } from "./evaluator-for.js";
import { helmRenderEnv } from "./template-dialect/index.js";
import { formatIdentity, identityKey, identityOf } from "./identity.js";
import {
  NODE_STATES,
  type CollectionQuery,
  type ExternalRequest,
  type InstanceEvaluation,
  type KubeJson,
  type NodeEvaluation,
  type ObjectIdentity,
  type ObservedLookup,
  type RuntimeOptions,
  DEFAULT_PASS_COST_LIMIT,
} from "./types.js";

/** Pending kinds that leave the desired set incomplete (prune must wait). */
const INCOMPLETE = new Set(["dependency-not-ready", "data-pending", "terminating"]);

/** Two nodes rendering the same object would fight over it (kro: "found resources with conflicts"). */
function conflict(nodes: readonly NodeEvaluation[]): string | undefined {
  const owners = new Map<string, string>();
  for (const node of nodes) {
    for (const object of node.desired) {
      const identity = identityOf(object);
      if (identity === undefined) continue;
      const key = identityKey(identity);
      const owner = owners.get(key);
      if (owner !== undefined && owner !== node.id)
        return `found resources with conflicts: "${owner}" and "${node.id}" both render ${formatIdentity(identity)}`;
      owners.set(key, node.id);
    }
  }
  return undefined;
}

export function evaluateInstance(
  graph: CompiledGraph,
  instance: KubeJson,
  lookup: ObservedLookup,
  options: RuntimeOptions = {},
): InstanceEvaluation {
  const observed = new Map<string, readonly KubeJson[]>();
  const excluded = new Set<string>();
  // One budget for the whole pass: a graph of cheap expressions over huge lists cannot hang a worker.
  const clock = options.passDeadline;
  const deadline =
    clock === undefined ? undefined : { now: clock.now, at: clock.now() + clock.budgetMs, budgetMs: clock.budgetMs };
  const cost = { budget: new CostBudget(options.passCostLimit ?? DEFAULT_PASS_COST_LIMIT, deadline) };
  const watches: (ObjectIdentity | CollectionQuery)[] = [];
  const externals: ExternalRequest[] = [];
  const helm = helmRenderEnv(graph, instance, lookup, options.helm, externals);
  const scope: EvaluationScope = {
    instance,
    observed,
    excluded,
    cost,
    ...(helm === undefined ? {} : { helm }),
    ...(deadline === undefined ? {} : { deadline }),
  };
  const ctx: NodeContext = {
    graph,
    evaluator: evaluatorFor(graph, options),
    lookup,
    options,
    instance: instanceRef(instance),
    kroVersion: options.kroVersion ?? DEFAULT_KRO_VERSION,
    scope,
    watches,
    externals,
  };
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const nodes: NodeEvaluation[] = [];
  let late: string | undefined;
  for (const id of graph.topologicalOrder) {
    const node = byId.get(id);
    if (node === undefined) continue;
    if (deadline !== undefined && deadline.now() > deadline.at) {
      late = `evaluation pass exceeded its time limit of ${deadline.budgetMs} ms before resource "${id}"`;
      break;
    }
    const result = evaluateNode(ctx, node);
    nodes.push(result);
    if (result.excluded) excluded.add(id);
    else if (result.ready) observed.set(id, result.observed);
  }

  const error = nodes.find((n) => n.error !== undefined)?.error ?? late ?? conflict(nodes);
  const blocked = nodes.some((n) => n.state === NODE_STATES.deleting);
  const position = new Map(graph.topologicalOrder.map((id, i) => [id, i]));
  const wave = new Map(graph.nodes.map((n) => [n.id, n.wave]));
  const ordered = [...nodes].sort(
    (a, b) => (wave.get(a.id) ?? 0) - (wave.get(b.id) ?? 0) || (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0),
  );
  // A real error anywhere, or a live child being deleted, stops the whole pass from applying (§6.7).
  const apply = error !== undefined || blocked ? [] : ordered.flatMap((n) => n.desired);
  return {
    nodes,
    apply,
    pending: nodes.some((n) => n.pending !== undefined && INCOMPLETE.has(n.pending.kind)),
    ...(error === undefined ? {} : { error }),
    watches,
    externals,
  };
}
