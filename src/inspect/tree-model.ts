/**
 * What `kro tree` shows, as data: an instance and, per node of its graph, the state a person
 * needs (ready / waiting for readiness / waiting on a dependency / excluded / error / deleting),
 * the reason, what blocks it (the readyWhen or includeWhen expression, the dependencies, the
 * missing field), the objects it stands for with their age, and nested instances expanded.
 * Pure: it reads the runtime's evaluation of a live instance (the same one `kro dev`'s board and
 * `kro graph --instance` use) and what the controller wrote on the instance's status.
 */
import { GRAPH_REVISION_STATUS, INSTANCE_CONDITIONS } from "../api/index.js";
import type { CompiledGraph, CompiledNode } from "../graph/index.js";
import {
  clusterOf,
  identityKey,
  identityOf,
  NODE_STATES,
  type InstanceEvaluation,
  type KubeJson,
  type NodeEvaluation,
} from "../runtime/index.js";

export const TREE_STATES = {
  ready: "Ready",
  waitingForReadiness: "WaitingForReadiness",
  waitingOnDependency: "WaitingOnDependency",
  excluded: "Excluded",
  error: "Error",
  deleting: "Deleting",
  /** Its objects live in a cluster this reader cannot read (no access to the registration, unreachable). */
  unknown: "Unknown",
} as const;
export type TreeState = (typeof TREE_STATES)[keyof typeof TREE_STATES];

export interface TreeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
  /** The registered cluster it lives in; absent: the hub. */
  readonly cluster?: string;
  /** metadata.creationTimestamp, RFC 3339. */
  readonly createdAt?: string;
  /** The object is itself an instance of an RGD: its own tree. */
  readonly instance?: InstanceTree;
}

export interface TreeNode {
  readonly id: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly type: CompiledNode["type"];
  readonly state: TreeState;
  readonly reason: string;
  /** What blocks the node: an expression, dependency ids, or the missing field. */
  readonly blockedBy?: {
    readonly expression?: string;
    readonly dependencies?: readonly string[];
    readonly missingPath?: string;
  };
  readonly objects: readonly TreeObject[];
}

export interface InstanceTree {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
  readonly createdAt?: string;
  readonly rgd: string;
  /** The Ready condition as the controller wrote it, for the generation it observed. */
  readonly ready: boolean;
  /** status.state (ACTIVE, IN_PROGRESS, ERROR, DELETING). */
  readonly state?: string;
  readonly reason: string;
  readonly message: string;
  readonly generation?: number;
  readonly observedGeneration?: number;
  /** Under a rollout: the graph revision the instance was assigned and the one its status was computed with. */
  readonly revision?: { readonly assigned?: number; readonly running?: number; readonly pinProblem?: string };
  readonly nodes: readonly TreeNode[];
}

interface Condition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  observedGeneration?: unknown;
}

const record = (v: unknown): KubeJson =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as KubeJson) : {};
const text = (v: unknown): string => (typeof v === "string" ? v : "");
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

function conditionsOf(instance: KubeJson): Condition[] {
  const list = record(instance.status).conditions;
  return Array.isArray(list) ? list.map(record) : [];
}

const APPLY_ERROR_PREFIX = "at least one resource reports an error: ";

/**
 * Errors the controller hit applying a node (a 403, a webhook's refusal) are not visible in the
 * objects: it writes them into ResourcesReady as `id: message; id2: message`. Split at the ids
 * the graph knows, so a message that itself contains "; " stays whole.
 */
export function applyErrorsFrom(instance: KubeJson, ids: readonly string[]): Map<string, string> {
  const message = text(
    conditionsOf(instance).find((c) => c.type === INSTANCE_CONDITIONS.resourcesReady && c.status === "False")?.message,
  );
  const found = new Map<string, string>();
  if (!message.startsWith(APPLY_ERROR_PREFIX)) return found;
  const body = message.slice(APPLY_ERROR_PREFIX.length);
  const starts = ids
    .flatMap((id) => {
      const at: number[] = [];
      for (let i = body.indexOf(`${id}: `); i >= 0; i = body.indexOf(`${id}: `, i + 1))
        if (i === 0 || body.startsWith("; ", i - 2)) at.push(i);
      return at.map((index) => ({ id, index }));
    })
    .sort((a, b) => a.index - b.index);
  starts.forEach((start, k) => {
    const end = starts[k + 1]?.index;
    const segment = body.slice(start.index + start.id.length + 2, end === undefined ? undefined : end - 2);
    if (!found.has(start.id)) found.set(start.id, segment);
  });
  return found;
}

function objectOf(o: KubeJson, nested: ReadonlyMap<string, InstanceTree>): TreeObject {
  const metadata = record(o.metadata);
  const uid = text(metadata.uid);
  const namespace = text(metadata.namespace);
  const instance = nested.get(uid);
  const cluster = clusterOf(o);
  return {
    apiVersion: text(o.apiVersion),
    kind: text(o.kind),
    name: text(metadata.name),
    ...(namespace === "" ? {} : { namespace }),
    ...(uid === "" ? {} : { uid }),
    ...(cluster === undefined ? {} : { cluster }),
    ...(typeof metadata.creationTimestamp === "string" ? { createdAt: metadata.creationTimestamp } : {}),
    ...(instance === undefined ? {} : { instance }),
  };
}

/** What the reader met outside the node itself: the controller's apply error, nested trees, unreadable clusters. */
export interface NodeContext {
  readonly excludedIds: ReadonlySet<string>;
  readonly applyError: string | undefined;
  readonly nested: ReadonlyMap<string, InstanceTree>;
  readonly unreadable: ReadonlyMap<string, string>;
}

/**
 * A node whose objects were not all observed because their cluster could not be read is not
 * "waiting": nothing is known of them here. Its reason names the clusters and why.
 */
function unreadableReason(evaluation: NodeEvaluation, unreadable: ReadonlyMap<string, string>): string | undefined {
  if (unreadable.size === 0) return undefined;
  const keyOf = (o: KubeJson): string => {
    const identity = identityOf(o);
    return identity === undefined ? "" : identityKey(identity);
  };
  const observed = new Set(evaluation.observed.map(keyOf));
  const reasons = new Set<string>();
  for (const object of evaluation.desired) {
    const cluster = clusterOf(object);
    const why = cluster === undefined ? undefined : unreadable.get(cluster);
    if (why !== undefined && !observed.has(keyOf(object))) reasons.add(why);
  }
  return reasons.size === 0 ? undefined : `not readable from here: ${[...reasons].join("; ")}`;
}

/** One node: state, reason and what blocks it, from its evaluation (and the controller's apply error, if any). */
export function treeNodeOf(node: CompiledNode, evaluation: NodeEvaluation, context: NodeContext): TreeNode {
  const { excludedIds, applyError, nested } = context;
  const base = {
    id: node.id,
    apiVersion: node.apiVersion,
    kind: node.kind,
    type: node.type,
    objects: evaluation.observed.map((o) => objectOf(o, nested)),
  };
  const pending = evaluation.pending;
  if (applyError !== undefined) return { ...base, state: TREE_STATES.error, reason: applyError };
  if (evaluation.error !== undefined) return { ...base, state: TREE_STATES.error, reason: evaluation.error };
  switch (evaluation.state) {
    case NODE_STATES.synced:
      return {
        ...base,
        state: TREE_STATES.ready,
        reason:
          node.readyWhen.length > 0 ? "readyWhen is true" : node.type.startsWith("external") ? "found" : "applied",
      };
    case NODE_STATES.skipped: {
      const excludedDependency = node.dependencies.filter((d) => excludedIds.has(d));
      if (node.includeWhen.length === 0 && excludedDependency.length > 0) {
        return {
          ...base,
          state: TREE_STATES.excluded,
          reason: `excluded with ${excludedDependency.join(", ")}`,
          blockedBy: { dependencies: excludedDependency },
        };
      }
      return {
        ...base,
        state: TREE_STATES.excluded,
        reason: "includeWhen is false",
        blockedBy: { expression: node.includeWhen.join(" && ") },
      };
    }
    case NODE_STATES.error:
      return { ...base, state: TREE_STATES.error, reason: pending?.message ?? "error" };
    case NODE_STATES.deleting:
    case NODE_STATES.deleted:
      return {
        ...base,
        state: TREE_STATES.deleting,
        reason: evaluation.state === NODE_STATES.deleted ? "deleted" : "deleting",
      };
    case NODE_STATES.waitingForReadiness:
    case NODE_STATES.inProgress:
      break;
  }
  if (pending === undefined) return { ...base, state: TREE_STATES.waitingForReadiness, reason: "in progress" };
  switch (pending.kind) {
    case "dependency-not-ready": {
      const dependencies = [...(pending.waitingOn ?? [])];
      return {
        ...base,
        state: TREE_STATES.waitingOnDependency,
        reason: `waiting on ${dependencies.join(", ") || "its dependencies"}`,
        blockedBy: { dependencies },
      };
    }
    case "data-pending":
      return {
        ...base,
        state: TREE_STATES.waitingOnDependency,
        reason: `waiting for ${pending.missingPath ?? pending.expression ?? "data"}`,
        blockedBy: {
          ...(pending.expression === undefined ? {} : { expression: pending.expression }),
          ...(pending.missingPath === undefined ? {} : { missingPath: pending.missingPath }),
        },
      };
    case "not-found":
      return {
        ...base,
        state: TREE_STATES.waitingOnDependency,
        reason: `external object not found: ${pending.message}`,
      };
    case "terminating":
      return { ...base, state: TREE_STATES.deleting, reason: "waiting for the old object to finish deleting" };
    case "readiness": {
      const unknown = unreadableReason(evaluation, context.unreadable);
      if (unknown !== undefined) return { ...base, state: TREE_STATES.unknown, reason: unknown };
      const expression = pending.expression ?? (node.readyWhen.length > 0 ? node.readyWhen.join(" && ") : undefined);
      const reason = base.objects.length === 0 ? "applied, not observed yet" : "readyWhen is not true yet";
      return {
        ...base,
        state: TREE_STATES.waitingForReadiness,
        reason,
        ...(expression === undefined ? {} : { blockedBy: { expression } }),
      };
    }
  }
}

/** The instance and its nodes; `nested` maps a child's UID to its own tree (nested instances). */
export function instanceTreeOf(
  graph: CompiledGraph,
  instance: KubeJson,
  evaluation: InstanceEvaluation,
  nested: ReadonlyMap<string, InstanceTree> = new Map(),
  unreadable: ReadonlyMap<string, string> = new Map(),
): InstanceTree {
  const metadata = record(instance.metadata);
  const status = record(instance.status);
  const ready = conditionsOf(instance).find((c) => c.type === INSTANCE_CONDITIONS.ready);
  const generation = num(metadata.generation);
  const observedGeneration = num(status.observedGeneration) ?? num(ready?.observedGeneration);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const excludedIds = new Set(evaluation.nodes.filter((n) => n.excluded).map((n) => n.id));
  const applyErrors = applyErrorsFrom(
    instance,
    graph.nodes.map((n) => n.id),
  );
  const nodes = evaluation.nodes.flatMap((e) => {
    const node = byId.get(e.id);
    return node === undefined
      ? []
      : [treeNodeOf(node, e, { excludedIds, applyError: applyErrors.get(e.id), nested, unreadable })];
  });
  const stale =
    generation !== undefined && observedGeneration !== undefined && observedGeneration < generation
      ? { generation, observedGeneration }
      : undefined;
  const current = stale === undefined;
  const namespace = text(metadata.namespace);
  const uid = text(metadata.uid);
  return {
    apiVersion: text(instance.apiVersion),
    kind: text(instance.kind),
    name: text(metadata.name),
    ...(namespace === "" ? {} : { namespace }),
    ...(uid === "" ? {} : { uid }),
    ...(typeof metadata.creationTimestamp === "string" ? { createdAt: metadata.creationTimestamp } : {}),
    rgd: graph.name,
    ready: ready?.status === "True" && current,
    ...(typeof status.state === "string" ? { state: status.state } : {}),
    reason: current ? text(ready?.reason) : "Reconciling",
    message:
      stale === undefined
        ? text(ready?.message)
        : `the controller has not reported on generation ${stale.generation} yet (status is for generation ${stale.observedGeneration})`,
    ...(generation === undefined ? {} : { generation }),
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
    ...revisionOf(status),
    nodes,
  };
}

/** The rollout's record (status.graphRevision), when the RGD has a rollout policy. */
function revisionOf(status: KubeJson): Pick<InstanceTree, "revision"> {
  const graphRevision = record(status[GRAPH_REVISION_STATUS.field]);
  const assigned = num(graphRevision.assigned);
  const running = num(graphRevision.evaluated);
  const pinProblem = typeof graphRevision.pinProblem === "string" ? graphRevision.pinProblem : undefined;
  if (assigned === undefined && running === undefined) return {};
  return {
    revision: {
      ...(assigned === undefined ? {} : { assigned }),
      ...(running === undefined ? {} : { running }),
      ...(pinProblem === undefined ? {} : { pinProblem }),
    },
  };
}

/** Does any node, here or in a nested instance, report an error? */
export function treeHasError(tree: InstanceTree): boolean {
  return (
    tree.state === "ERROR" ||
    tree.nodes.some(
      (n) =>
        n.state === TREE_STATES.error || n.objects.some((o) => o.instance !== undefined && treeHasError(o.instance)),
    )
  );
}
