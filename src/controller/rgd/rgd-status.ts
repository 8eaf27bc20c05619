/**
 * The status a ResourceGraphDefinition shows (docs/reference/kro-reference.md §2.4): three
 * dependent conditions and the root Ready, `state` Active only when all three hold, and the graph's
 * order.
 */
import type { KubeObject } from "../../kube/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import { currentConditions, rootReady, stamp, type ConditionInput } from "../../runtime/index.js";

export const RGD_CONDITIONS = {
  graphAccepted: "ResourceGraphAccepted",
  kindReady: "KindReady",
  controllerReady: "ControllerReady",
  ready: "Ready",
} as const;
export const RGD_STATES = { active: "Active", inactive: "Inactive" } as const;

export interface RgdStatusParts {
  readonly graphAccepted: ConditionInput;
  readonly kindReady: ConditionInput;
  readonly controllerReady: ConditionInput;
  /** DelegationVerified, only for an RGD that delegates rights to instance authors (docs/design/authorization.md). */
  readonly delegation?: ConditionInput | undefined;
  /**
   * Only for an RGD with spec.rollout: status.rollout and the `Propagated` condition, outside
   * the Ready hierarchy (an RGD whose rollout halted still serves its kind).
   */
  readonly rollout?: { readonly status: Record<string, unknown>; readonly condition: ConditionInput } | undefined;
}

/** The rollout's status and condition as the RGD shows them now: kept while a round could not plan. */
export function currentRollout(rgd: KubeObject): RgdStatusParts["rollout"] {
  const status = (rgd.status as { rollout?: unknown } | undefined)?.rollout;
  const condition = currentConditions(rgd).get("Propagated");
  if (status === null || typeof status !== "object" || condition === undefined) return undefined;
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  return {
    status: status as Record<string, unknown>,
    condition: {
      type: "Propagated",
      status: text(condition.status),
      reason: text(condition.reason),
      message: text(condition.message),
    },
  };
}

/** kro's ConditionSet.SetUnknown wording (pkg/apis/condition_set.go). */
export function unknownCondition(type: string): ConditionInput {
  return {
    type,
    status: "Unknown",
    reason: "AwaitingReconciliation",
    message: `condition "${type}" is awaiting reconciliation`,
  };
}

export function rgdStatus(
  rgd: KubeObject,
  parts: RgdStatusParts,
  graph: CompiledGraph | undefined,
  now: string,
): Record<string, unknown> {
  const dependents = [
    parts.graphAccepted,
    parts.kindReady,
    parts.controllerReady,
    ...(parts.delegation === undefined ? [] : [parts.delegation]),
  ];
  const previous = currentConditions(rgd);
  const generation = rgd.metadata?.generation;
  const stamped = dependents.map((c) => stamp(c, previous, generation, now));
  const conditions = [
    ...stamped,
    stamp(rootReady(stamped), previous, generation, now),
    ...(parts.rollout === undefined ? [] : [stamp(parts.rollout.condition, previous, generation, now)]),
  ];
  const active = dependents.every((c) => c.status === "True");
  const status: Record<string, unknown> = {
    state: active ? RGD_STATES.active : RGD_STATES.inactive,
    conditions,
    ...(parts.rollout === undefined ? {} : { rollout: parts.rollout.status }),
  };
  return graph === undefined ? status : { ...status, ...graphShape(graph) };
}

/** status.topologicalOrder and status.resources (the nodes that depend on others), as kro shows them on RGDs and GraphRevisions. */
export function graphShape(graph: CompiledGraph): {
  topologicalOrder: string[];
  resources: { id: string; dependencies: { id: string }[] }[];
} {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const resources = graph.topologicalOrder
    .map((id) => byId.get(id))
    .filter((n) => n !== undefined && n.dependencies.length > 0)
    .map((n) => ({ id: n?.id ?? "", dependencies: (n?.dependencies ?? []).map((d) => ({ id: d })) }));
  return { topologicalOrder: [...graph.topologicalOrder], resources };
}
