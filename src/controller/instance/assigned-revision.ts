/**
 * Which graph one instance is evaluated with. Without spec.rollout: the RGD's served graph, as
 * in kro. With one: the graph of the revision the rollout assigned it (status.graphRevision,
 * written only by the controller), so an instance whose wave has not come keeps its revision even
 * when its own spec changes (docs/design/rollouts.md). An instance not assigned yet stays on the
 * revision it last ran; one that never ran runs the newest.
 */
import { GRAPH_REVISION_STATUS } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { unmetHealthCheck } from "../../runtime/index.js";
import type { ServedGraph } from "../context/index.js";

export type RevisionChoice =
  | { readonly kind: "served"; readonly served: ServedGraph }
  /** Assigned a revision whose graph this replica does not hold (pruned, or no longer compiles): wait for the rollout to move it. */
  | { readonly kind: "missing"; readonly revision: number };

export function servedAtAssignedRevision(served: ServedGraph, instance: KubeObject): RevisionChoice {
  if (served.graph.rollout === undefined) return { kind: "served", served };
  const record = (instance.status as Record<string, unknown> | undefined)?.[GRAPH_REVISION_STATUS.field] as
    { assigned?: unknown; evaluated?: unknown } | undefined;
  // Not assigned yet but already running a revision (created before the rollout adopted it): it
  // stays there until the rollout adopts it. Running the newest instead let every such instance
  // take a new revision at once, in the moment between serving it and the rollout's first round.
  const assigned = record?.assigned ?? record?.evaluated;
  if (!Number.isSafeInteger(assigned) || assigned === served.revision) return { kind: "served", served };
  const revision = assigned as number;
  const graph = served.revisions?.get(revision);
  if (graph === undefined) return { kind: "missing", revision };
  return { kind: "served", served: { ...served, revision, graph } };
}

interface RevisionRecord {
  assigned?: number;
  assignedAt?: string;
  evaluated?: number;
  healthyAt?: string;
  unhealthy?: string;
  pinProblem?: string;
}

function recordOf(status: unknown): RevisionRecord | undefined {
  const value = (status as Record<string, unknown> | undefined)?.[GRAPH_REVISION_STATUS.field];
  return value !== null && typeof value === "object" && !Array.isArray(value) ? value : undefined;
}

/**
 * The instance's status with its revision record, under a rollout: what the rollout assigned kept
 * as found, the revision this status was computed with, and when it was first healthy there —
 * Ready, and every `healthyWhen` holding — (kept while the revision stays, so a wave that was
 * healthy stays done) or why it is not. Without a policy the status is returned as it is: nothing
 * is added (as in kro).
 */
export function withRevisionRecord(
  served: ServedGraph,
  instance: KubeObject,
  status: Record<string, unknown>,
  now: string,
): Record<string, unknown> {
  if (served.graph.rollout === undefined || served.revision === undefined) return status;
  const previous = recordOf(instance.status) ?? {};
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Record<string, unknown>[]) : [];
  const ready = conditions.find((c) => c.type === "Ready");
  const unmet = ready?.status === "True" ? unmetHealthCheck(served.graph, { ...instance, status }) : undefined;
  const healthy = ready?.status === "True" && unmet === undefined;
  const sameRevision = previous.evaluated === served.revision;
  const healthyAt = healthy ? (sameRevision ? (previous.healthyAt ?? now) : now) : undefined;
  const keptHealthyAt = healthyAt ?? (sameRevision ? previous.healthyAt : undefined);
  const record: RevisionRecord = {
    ...(previous.assigned === undefined ? {} : { assigned: previous.assigned }),
    ...(previous.assignedAt === undefined ? {} : { assignedAt: previous.assignedAt }),
    evaluated: served.revision,
    ...(keptHealthyAt === undefined ? {} : { healthyAt: keptHealthyAt }),
    ...(healthy
      ? {}
      : {
          unhealthy:
            unmet ?? `Ready=${text(ready?.status) || "Unknown"}: ${text(ready?.reason)} ${text(ready?.message)}`.trim(),
        }),
    // The rollout's verdict on the instance's pin: the rollout writes and clears it.
    ...(previous.pinProblem === undefined ? {} : { pinProblem: previous.pinProblem }),
  };
  return { ...status, [GRAPH_REVISION_STATUS.field]: record };
}

const text = (value: unknown): string => (typeof value === "string" ? value : "");

/** A status write that does not compute the record (a suspended instance's) must not drop it: a PUT replaces the whole status. */
export function carryRevisionRecord(instance: KubeObject, status: Record<string, unknown>): Record<string, unknown> {
  const previous = recordOf(instance.status);
  if (previous === undefined || GRAPH_REVISION_STATUS.field in status) return status;
  return { ...status, [GRAPH_REVISION_STATUS.field]: previous };
}
