/**
 * renderInstance: what the controller would do for one instance, without a cluster (`kro
 * render`). Like the controller's apply rounds within one reconcile, every desired object is fed
 * back as if applied (its apply response ≈ itself) until nothing new appears; objects supplied
 * as observed always win over simulated ones. Readiness is evaluated as usual unless
 * `assumeReady`, so what only the cluster can provide (status, uids) stays pending and is named.
 */
import type { CompiledGraph } from "../graph/index.js";
import { evaluateInstance } from "./evaluate.js";
import { identityKey, identityOf } from "./identity.js";
import { createMemoryLookup } from "./memory-lookup.js";
import type { ProjectedStatus } from "./dialect.js";
import { evaluatorFor } from "./evaluator-for.js";
import { buildInstanceStatus, statusScope } from "./status.js";
import type { InstanceEvaluation, KubeJson, NodeEvaluation, RuntimeOptions } from "./types.js";

export interface RenderOptions extends RuntimeOptions {
  /** Live objects (`--observed`): they take the place of the simulated apply responses. */
  readonly observed?: readonly KubeJson[];
  /** RFC 3339 time stamped on conditions. */
  readonly now: string;
}

export interface RenderResult {
  readonly evaluation: InstanceEvaluation;
  /** The `.status` the controller would write. */
  readonly status: KubeJson;
  /** Nodes that could not be rendered (waiting on data, dependencies or missing externals). */
  readonly unrendered: readonly NodeEvaluation[];
  /** User status fields left out because their data is pending. */
  readonly pendingStatus: NonNullable<ProjectedStatus["pendingFields"]>;
}

const UNRENDERED = new Set(["dependency-not-ready", "data-pending", "not-found", "terminating"]);

export function renderInstance(graph: CompiledGraph, instance: KubeJson, options: RenderOptions): RenderResult {
  const { observed = [], now, ...runtime } = options;
  const lookup = createMemoryLookup(observed);
  const supplied = new Set(
    observed.flatMap((o) => {
      const identity = identityOf(o);
      return identity === undefined ? [] : [identityKey(identity)];
    }),
  );
  const simulated = new Map<string, string>();
  let evaluation = evaluateInstance(graph, instance, lookup, runtime);
  // Each round unlocks nodes further down the graph: one round per node at most (bounded even if
  // a desired object kept changing).
  for (let round = 0; round <= graph.nodes.length; round++) {
    let changed = false;
    for (const object of evaluation.apply) {
      const identity = identityOf(object);
      if (identity === undefined) continue;
      const key = identityKey(identity);
      const text = JSON.stringify(object);
      if (supplied.has(key) || simulated.get(key) === text) continue;
      simulated.set(key, text);
      lookup.put(object);
      changed = true;
    }
    if (!changed) break;
    evaluation = evaluateInstance(graph, instance, lookup, runtime);
  }
  const status = buildInstanceStatus(graph, instance, evaluation, { now });
  const unrendered = evaluation.nodes.filter((n) => n.pending !== undefined && UNRENDERED.has(n.pending.kind));
  const pendingStatus =
    evaluatorFor(graph).projectStatus(graph, statusScope(graph, instance, evaluation)).pendingFields ?? [];
  return { evaluation, status, unrendered, pendingStatus };
}
