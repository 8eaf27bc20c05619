/**
 * One node of one pass (docs/reference/kro-reference.md §6.7): exclusion, includeWhen, dependency
 * gating, rendering, decoration, observation through the lookup port, and readiness. Pure:
 * everything the node needs arrives in the context, everything it found goes back in its
 * NodeEvaluation.
 */
import type { CompiledGraph, CompiledNode } from "../graph/index.js";
import { decorate, defaultNamespace, type InstanceRef } from "./decorate.js";
import type { DialectEvaluator, EvaluationScope, Outcome } from "./dialect.js";
import { formatIdentity, identityKey, isTerminating } from "./identity.js";
import { collectionQuery, externalQuery, matchItems, requireIdentity } from "./observe.js";
import { gateMessage, propagationGate } from "./propagation-gate.js";
import { runsDesired, stampDesiredHash } from "./desired-hash.js";
import {
  NODE_STATES,
  type CollectionQuery,
  type ExternalRequest,
  type KubeJson,
  type NodeEvaluation,
  type ObjectIdentity,
  type ObservedLookup,
  type PendingReason,
  type RuntimeOptions,
} from "./types.js";

export interface NodeContext {
  readonly graph: CompiledGraph;
  readonly evaluator: DialectEvaluator;
  readonly lookup: ObservedLookup;
  readonly options: RuntimeOptions;
  readonly instance: InstanceRef;
  readonly kroVersion: string;
  /** Observed objects of ready nodes only: what dependents may read (§12.1). */
  readonly scope: EvaluationScope;
  readonly watches: (ObjectIdentity | CollectionQuery)[];
  readonly externals: ExternalRequest[];
}

const base = (id: string) => ({
  id,
  excluded: false,
  ready: false,
  desired: [] as KubeJson[],
  observed: [] as KubeJson[],
});

function skipped(id: string): NodeEvaluation {
  return { ...base(id), state: NODE_STATES.skipped, excluded: true, ready: true };
}

function failed(id: string, error: string): NodeEvaluation {
  return { ...base(id), state: NODE_STATES.error, error };
}

function waiting(id: string, pending: PendingReason): NodeEvaluation {
  return { ...base(id), state: NODE_STATES.inProgress, pending };
}

function fromOutcome(id: string, outcome: Exclude<Outcome<unknown>, { ok: true }>): NodeEvaluation {
  return outcome.error !== undefined ? failed(id, outcome.error) : waiting(id, outcome.pending);
}

function pendingOnDependency(node: CompiledNode, notReady: readonly string[]): PendingReason {
  return {
    kind: "dependency-not-ready",
    waitingOn: notReady,
    message: `resource "${node.id}" waits for ${notReady.map((d) => `"${d}"`).join(", ")} to be ready`,
  };
}

/** Desired objects with namespace defaulted and kro's metadata stamped (resources and forEach items). */
function decorateAll(ctx: NodeContext, node: CompiledNode, rendered: readonly KubeJson[]): KubeJson[] | string {
  const out: KubeJson[] = [];
  const seen = new Map<string, number>();
  for (const [index, object] of rendered.entries()) {
    const namespaced = defaultNamespace(object, node, ctx.instance);
    if ("error" in namespaced) return namespaced.error;
    const item = node.type === "collection" ? { index, size: rendered.length } : undefined;
    const decorated = decorate(namespaced.object, {
      graph: ctx.graph,
      node,
      instance: ctx.instance,
      kroVersion: ctx.kroVersion,
      ...(ctx.options.childLabels === undefined
        ? {}
        : { extraLabels: ctx.options.childLabels(node.apiVersion, node.kind) ?? {} }),
      ...(item ? { item } : {}),
    });
    const identity = requireIdentity(decorated, `resource "${node.id}"${item ? ` item ${index}` : ""}`);
    if (typeof identity === "string") return identity;
    const key = identityKey(identity);
    const first = seen.get(key);
    if (first !== undefined)
      return `resource "${node.id}": forEach items ${first} and ${index} both render ${formatIdentity(identity)}; every item needs a unique identity`;
    seen.set(key, index);
    out.push(decorated);
  }
  return out;
}

/** Identities of the objects the dialect says the node keeps without applying (namespace defaulted). */
function retainedIdentities(ctx: NodeContext, node: CompiledNode): ObjectIdentity[] {
  return (ctx.evaluator.retained?.(node, ctx.scope) ?? []).flatMap((object) => {
    const namespaced = defaultNamespace(object, node, ctx.instance);
    const identity = "error" in namespaced ? undefined : requireIdentity(namespaced.object, node.id);
    return identity === undefined || typeof identity === "string" ? [] : [identity];
  });
}

/** Readiness of observed objects; collections need every desired item observed and ready. */
function readiness(
  ctx: NodeContext,
  node: CompiledNode,
  observed: readonly (KubeJson | undefined)[],
): Outcome<boolean> {
  // A nested instance's status is written by another reconcile: a wait on it is marked so the
  // controller also looks again later, whatever readyWhen says (nextReconcile).
  const nestedWait = ctx.options.awaitsReady?.(node.apiVersion, node.kind) === true;
  for (const object of observed) {
    if (object === undefined)
      return {
        ok: false,
        pending: { kind: "readiness", message: `resource "${node.id}" is not observed in the cluster yet` },
      };
    if (ctx.options.assumeReady === true) continue;
    const ready = ctx.evaluator.isReady(node, object, ctx.scope);
    if (!ready.ok)
      return nestedWait && ready.pending !== undefined
        ? { ...ready, pending: { ...ready.pending, nestedInstance: true } }
        : ready;
    const nested = nestedWait ? nestedInstanceReadiness(node, object) : undefined;
    if (nested !== undefined) return nested;
    if (!ready.value)
      return {
        ok: false,
        pending: {
          kind: "readiness",
          message: `resource "${node.id}": readyWhen is not satisfied yet`,
          ...(node.readyWhen[0] === undefined ? {} : { expression: node.readyWhen.join(" && ") }),
          ...(nestedWait ? { nestedInstance: true as const } : {}),
        },
      };
  }
  return { ok: true, value: true };
}

/**
 * A child that is itself an instance of an RGD, without a readyWhen of its own, is ready when its
 * Ready condition is True for its current generation: a parent never reports
 * Ready over a broken nested instance. kro counts such a child ready once it exists.
 */
function nestedInstanceReadiness(node: CompiledNode, object: KubeJson): Outcome<boolean> | undefined {
  if (node.readyWhen.length > 0) return undefined;
  const metadata = (object.metadata ?? {}) as { generation?: number };
  const conditions = ((object.status as { conditions?: unknown } | undefined)?.conditions ?? []) as {
    type?: string;
    status?: string;
    message?: string;
    observedGeneration?: number;
  }[];
  const ready = Array.isArray(conditions) ? conditions.find((c) => c.type === "Ready") : undefined;
  const current =
    ready?.observedGeneration === undefined ||
    metadata.generation === undefined ||
    ready.observedGeneration >= metadata.generation;
  if (ready?.status === "True" && current) return undefined;
  const why =
    ready === undefined
      ? "has no Ready condition yet"
      : !current
        ? "has not reported on its current generation yet"
        : `is not Ready (${ready.status ?? "Unknown"}${ready.message === undefined ? "" : `: ${ready.message}`})`;
  return {
    ok: false,
    pending: { kind: "readiness", message: `resource "${node.id}": nested instance ${why}`, nestedInstance: true },
  };
}

function settle(
  id: string,
  desired: readonly KubeJson[],
  observed: readonly (KubeJson | undefined)[],
  ready: Outcome<boolean>,
): NodeEvaluation {
  const present = observed.filter((o): o is KubeJson => o !== undefined);
  if (!ready.ok && ready.error !== undefined) return { ...failed(id, ready.error), desired, observed: present };
  if (ready.ok) return { ...base(id), state: NODE_STATES.synced, ready: true, desired, observed: present };
  const notCreated = present.length < observed.length;
  return {
    ...base(id),
    state: notCreated ? NODE_STATES.inProgress : NODE_STATES.waitingForReadiness,
    desired,
    observed: present,
    pending: ready.pending,
  };
}

function terminating(
  id: string,
  desired: readonly KubeJson[],
  observed: readonly KubeJson[],
): NodeEvaluation | undefined {
  const dying = observed.find(isTerminating);
  if (dying === undefined) return undefined;
  const identity = requireIdentity(dying, id);
  const what = typeof identity === "string" ? `resource "${id}"` : formatIdentity(identity);
  return {
    ...base(id),
    state: NODE_STATES.deleting,
    desired,
    observed,
    pending: { kind: "terminating", message: `${what} is currently being deleted` },
  };
}

/**
 * A collection under propagateWhen: every item's desired object carries its hash, the gate says
 * which items may take it, and the others are neither created nor changed this pass — those that
 * exist are retained as they are (never pruned). While any item is held the collection is not
 * ready, so the instance is not reported converged before every item runs its desired object.
 */
function observeGated(ctx: NodeContext, node: CompiledNode, unstamped: readonly KubeJson[]): NodeEvaluation {
  const desired = unstamped.map(stampDesiredHash);
  const query = collectionQuery(ctx.graph, node, ctx.instance);
  ctx.watches.push(query);
  const listed = ctx.lookup.list(query);
  const dying = terminating(node.id, desired, listed.filter(isTerminating));
  if (dying) return dying;
  const observed = matchItems(desired, listed);
  const states = [];
  for (const [i, live] of observed.entries()) {
    let ready = false;
    if (live !== undefined) {
      const outcome =
        ctx.options.assumeReady === true
          ? { ok: true as const, value: true }
          : ctx.evaluator.isReady(node, live, ctx.scope);
      if (!outcome.ok && outcome.error !== undefined) return failed(node.id, outcome.error);
      ready = outcome.ok && outcome.value;
    }
    states.push({ exists: live !== undefined, updated: runsDesired(desired[i] as KubeJson, live), ready });
  }
  const decision = propagationGate(node.propagateWhen ?? [], states);
  if (decision.held === 0) return settle(node.id, desired, observed, readiness(ctx, node, observed));
  const retained: ObjectIdentity[] = [];
  for (const [i, live] of observed.entries()) {
    if (decision.allowed[i] === true || live === undefined) continue;
    const identity = requireIdentity(desired[i] as KubeJson, node.id);
    if (typeof identity !== "string") retained.push(identity);
  }
  return {
    ...base(node.id),
    state: NODE_STATES.inProgress,
    desired: desired.filter((_, i) => decision.allowed[i] === true),
    observed: observed.filter((o): o is KubeJson => o !== undefined),
    pending: { kind: "readiness", message: gateMessage(node.id, decision) },
    ...(retained.length === 0 ? {} : { retained }),
  };
}

function observeManaged(ctx: NodeContext, node: CompiledNode, desired: readonly KubeJson[]): NodeEvaluation {
  let observed: (KubeJson | undefined)[];
  if (node.type === "collection" && (node.propagateWhen?.length ?? 0) > 0) return observeGated(ctx, node, desired);
  if (node.type === "collection") {
    const query = collectionQuery(ctx.graph, node, ctx.instance);
    ctx.watches.push(query);
    const listed = ctx.lookup.list(query);
    const dying = terminating(node.id, desired, listed.filter(isTerminating));
    if (dying) return dying;
    observed = matchItems(desired, listed);
  } else {
    const [object] = desired;
    const identity = object === undefined ? undefined : requireIdentity(object, node.id);
    if (identity === undefined || typeof identity === "string")
      return failed(node.id, identity ?? `resource "${node.id}" rendered nothing`);
    ctx.watches.push(identity);
    const live = ctx.lookup.get(identity);
    const dying = live === undefined ? undefined : terminating(node.id, desired, [live]);
    if (dying) return dying;
    observed = [live];
  }
  return settle(node.id, desired, observed, readiness(ctx, node, observed));
}

function observeExternal(ctx: NodeContext, node: CompiledNode, ref: KubeJson): NodeEvaluation {
  if (node.type === "externalCollection") {
    const query = externalQuery(ref);
    if (typeof query === "string") return failed(node.id, `resource "${node.id}": ${query}`);
    ctx.watches.push(query);
    ctx.externals.push({ nodeId: node.id, request: query });
    const listed = ctx.lookup.list(query);
    return settle(node.id, [], listed, readiness(ctx, node, listed));
  }
  const namespaced = defaultNamespace(ref, node, ctx.instance);
  if ("error" in namespaced) return failed(node.id, namespaced.error);
  const identity = requireIdentity(namespaced.object, `resource "${node.id}"`);
  if (typeof identity === "string") return failed(node.id, identity);
  ctx.watches.push(identity);
  ctx.externals.push({ nodeId: node.id, request: identity });
  const live = ctx.lookup.get(identity);
  if (live === undefined) {
    return {
      ...base(node.id),
      state: NODE_STATES.waitingForReadiness,
      pending: { kind: "not-found", message: `external reference "${node.id}": ${formatIdentity(identity)} not found` },
    };
  }
  return settle(node.id, [], [live], readiness(ctx, node, [live]));
}

export function evaluateNode(ctx: NodeContext, node: CompiledNode): NodeEvaluation {
  if (node.dependencies.some((d) => ctx.scope.excluded.has(d))) return skipped(node.id);
  const notReady = node.dependencies.filter((d) => !ctx.scope.observed.has(d));
  const included = ctx.evaluator.isIncluded(node, ctx.scope);
  if (!included.ok) {
    // includeWhen reading a dependency that is not ready yet: say so rather than "unknown variable".
    const root = included.pending?.missingPath?.split(".")[0];
    if (root !== undefined && notReady.includes(root)) return waiting(node.id, pendingOnDependency(node, notReady));
    return fromOutcome(node.id, included);
  }
  if (!included.value) return skipped(node.id);
  if (notReady.length > 0) return waiting(node.id, pendingOnDependency(node, notReady));

  const rendered = ctx.evaluator.renderDesired(node, ctx.scope);
  if (!rendered.ok) return fromOutcome(node.id, rendered);
  if (node.type === "external" || node.type === "externalCollection") {
    const [ref] = rendered.value;
    return ref === undefined
      ? failed(node.id, `external reference "${node.id}" rendered nothing`)
      : observeExternal(ctx, node, ref);
  }
  const desired = decorateAll(ctx, node, rendered.value);
  if (typeof desired === "string") return failed(node.id, desired);
  const evaluation = observeManaged(ctx, node, desired);
  const retained = [...(evaluation.retained ?? []), ...retainedIdentities(ctx, node)];
  return retained.length > 0 ? { ...evaluation, retained } : evaluation;
}
