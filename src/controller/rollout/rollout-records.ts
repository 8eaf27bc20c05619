/**
 * The planner's inputs read from the objects, and its decisions as the fields written back: an
 * instance's `status.graphRevision` and pin, the RGD's pause annotation and `status.rollout`.
 * Pure; times are RFC 3339 on the wire, milliseconds for the planner. A malformed field reads as
 * absent (an instance with an unreadable record is adopted again, which is what it needs).
 */
import { ANNOTATIONS, GRAPH_REVISION_STATUS } from "../../api/index.js";
import type { KubeJson } from "../../runtime/index.js";
import { InventoryFormatError, readInventory } from "../instance/index.js";
import type {
  RejectedRevision,
  RolloutControl,
  RolloutHalt,
  RolloutInstance,
  RolloutMove,
  RolloutPlan,
} from "./rollout-state.js";

/** The part of an object these records read. */
export interface ObjectView {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly creationTimestamp?: string;
  };
  readonly status?: unknown;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const revisionAt = (value: unknown): number | undefined =>
  Number.isSafeInteger(value) && (value as number) >= 1 ? (value as number) : undefined;
const timeAt = (value: unknown): number | undefined => {
  const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
};
const iso = (ms: number): string => new Date(ms).toISOString();

/** An instance as the planner sees it. */
/**
 * `placement`: read the member clusters from the inventory (a JSON parse per instance), which only
 * a policy with a wave of clusters uses; every round of a rollout reads every instance.
 */
export function rolloutInstanceOf(object: ObjectView, key: string, placement = true): RolloutInstance {
  const metadata = object.metadata ?? {};
  const revision = record(record(object.status)?.[GRAPH_REVISION_STATUS.field]) ?? {};
  const fields = {
    assigned: revisionAt(revision.assigned),
    assignedAt: timeAt(revision.assignedAt),
    evaluated: revisionAt(revision.evaluated),
    healthyAt: timeAt(revision.healthyAt),
    unhealthy: typeof revision.unhealthy === "string" ? revision.unhealthy : undefined,
    pin: metadata.annotations?.[ANNOTATIONS.pinGraphRevision],
    pinProblem: typeof revision.pinProblem === "string" ? revision.pinProblem : undefined,
    clusters: placement ? placedClusters(object) : undefined,
    namespace: metadata.namespace,
  };
  return {
    key,
    name: metadata.name ?? "",
    labels: metadata.labels ?? {},
    createdAt: timeAt(metadata.creationTimestamp) ?? 0,
    ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
  };
}

/**
 * The member clusters an instance's children are placed in, as its inventory records them (empty
 * before its first apply; an unreadable inventory reads as none: the instance falls to a later wave).
 */
function placedClusters(object: ObjectView): readonly string[] | undefined {
  let entries: readonly { readonly cluster?: string }[];
  try {
    entries = readInventory(object as KubeJson).entries;
  } catch (error) {
    if (error instanceof InventoryFormatError) return undefined;
    throw error;
  }
  const clusters = [...new Set(entries.flatMap((e) => (e.cluster === undefined ? [] : [e.cluster])))].sort();
  return clusters.length === 0 ? undefined : clusters;
}

/** The RGD's pause annotation and the verdicts its status keeps. */
export function rolloutControlOf(rgd: ObjectView): RolloutControl {
  const status = record(record(rgd.status)?.rollout) ?? {};
  const rejected: RejectedRevision[] = [];
  for (const entry of Array.isArray(status.rejected) ? (status.rejected as unknown[]) : []) {
    const r = record(entry);
    const revision = revisionAt(r?.revision);
    if (revision === undefined) continue;
    rejected.push({ revision, by: r?.by === "command" ? "command" : "gate", at: timeAt(r?.at) ?? 0 });
  }
  const halted = haltOf(record(status.halted));
  const resumedAt = timeAt(status.resumedAt);
  return {
    paused: rgd.metadata?.annotations?.[ANNOTATIONS.rolloutPaused]?.toLowerCase() === "true",
    rejected,
    ...(halted === undefined ? {} : { halted }),
    ...(resumedAt === undefined ? {} : { resumedAt }),
  };
}

function haltOf(halt: Record<string, unknown> | undefined): RolloutHalt | undefined {
  const revision = revisionAt(halt?.revision);
  if (halt === undefined || revision === undefined) return undefined;
  const instances = (Array.isArray(halt.instances) ? (halt.instances as unknown[]) : []).flatMap((entry) => {
    const i = record(entry);
    if (typeof i?.key !== "string") return [];
    return [{ key: i.key, reason: typeof i.reason === "string" ? i.reason : "" }];
  });
  return {
    revision,
    wave: Number.isSafeInteger(halt.wave) ? (halt.wave as number) : 0,
    at: timeAt(halt.at) ?? 0,
    instances,
  };
}

/** Failing instances kept on the RGD: the first ones (the condition's message counts the rest). */
const KEPT_FAILURES = 20;

/**
 * The RGD's `status.rollout` after a round: the plan's progress, and the verdicts — those the
 * round reached added to those already kept. A halt of a revision that is no longer the target
 * is dropped (a newer revision superseded it, or it was rolled back); rejections of revisions
 * that are gone are dropped too.
 */
export function rolloutStatusOf(
  plan: RolloutPlan,
  control: RolloutControl,
  liveRevisions: readonly number[],
  nameOf: (key: string) => { readonly namespace?: string; readonly name: string },
): Record<string, unknown> {
  const rejected = [...control.rejected, ...(plan.reject === undefined ? [] : [plan.reject])].filter((r) =>
    liveRevisions.includes(r.revision),
  );
  const halt = plan.halt ?? (control.halted?.revision === plan.target ? control.halted : undefined);
  return {
    ...(plan.target === undefined ? {} : { target: plan.target }),
    ...(plan.wave === undefined ? {} : { wave: plan.wave }),
    updated: plan.counts.updated,
    total: plan.counts.total,
    ...(halt === undefined
      ? {}
      : {
          halted: {
            revision: halt.revision,
            wave: halt.wave,
            at: iso(halt.at),
            instances: halt.instances
              .slice(0, KEPT_FAILURES)
              .map((f) => ({ ...nameOf(f.key), key: f.key, reason: f.reason })),
          },
        }),
    ...(rejected.length === 0
      ? {}
      : { rejected: rejected.map((r) => ({ revision: r.revision, by: r.by, at: iso(r.at) })) }),
    ...(control.resumedAt === undefined ? {} : { resumedAt: iso(control.resumedAt) }),
    ...(plan.pinProblems.length === 0
      ? {}
      : {
          pinProblems: plan.pinProblems
            .slice(0, KEPT_FAILURES)
            .map((f) => ({ ...nameOf(f.key), key: f.key, reason: f.reason })),
        }),
  };
}

/**
 * The instances whose own record of their pin's verdict differs from this round's: the instance
 * author, who may read only the instance, learns there why the pin is not honoured (and sees the
 * note go once it is). `problem` undefined clears it.
 */
export function pinNotes(
  plan: Pick<RolloutPlan, "pinProblems">,
  instances: readonly RolloutInstance[],
): { key: string; problem?: string }[] {
  const problems = new Map(plan.pinProblems.map((p) => [p.key, p.reason]));
  return instances.flatMap((i) => {
    const problem = problems.get(i.key);
    if (problem === i.pinProblem) return [];
    return [{ key: i.key, ...(problem === undefined ? {} : { problem }) }];
  });
}

/** The status merge patch that records (or, with undefined, clears) an instance's pin problem. */
export function pinNotePatch(problem: string | undefined): Record<string, unknown> {
  return { status: { [GRAPH_REVISION_STATUS.field]: { pinProblem: problem ?? null } } };
}

/** The status patch that gives an instance its revision (merge patch of the status subresource). */
export function assignmentPatch(move: RolloutMove, now: number): Record<string, unknown> {
  return { status: { [GRAPH_REVISION_STATUS.field]: { assigned: move.to, assignedAt: iso(now) } } };
}
