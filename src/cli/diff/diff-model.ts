/**
 * What `kro diff` found, as data (the `-o json|yaml` output), and the pure summary over it: per
 * instance, each object's action (created, updated with its field changes, deleted — or a
 * deletion our ownership rules refuse — ...), and over all instances the counts by kind, node and
 * changed field ("3 Deployment (deploy) change spec.replicas").
 */
import type { WavePreview } from "../../controller/index.js";
import { compareCodeUnits } from "../../api/index.js";
import type { FieldChange } from "./diff-fields.js";

export const OBJECT_ACTIONS = {
  create: "create",
  update: "update",
  /** A foreign object taken over (the instance's kro.run/adopt opt-in), with its field changes. */
  adopt: "adopt",
  unchanged: "unchanged",
  delete: "delete",
  /** An adopted object the instance lets go of: it stays, our labels and fields leave it. */
  release: "release",
  /** No longer desired, but not provably ours: never deleted, its record is dropped. */
  deleteRefused: "delete-refused",
  /** Already terminating: nothing new is sent. */
  deleting: "deleting",
  /** Someone else's object is in the way: the write is refused (another instance's, or foreign without adoption). */
  conflict: "conflict",
  /** The API server (validation, admission) refuses the write or the deletion. */
  error: "error",
  /** Not rendered yet: waits on a dependency's readiness or data only the cluster will provide. */
  pending: "pending",
} as const;
export type ObjectAction = (typeof OBJECT_ACTIONS)[keyof typeof OBJECT_ACTIONS];

/** Actions that change the cluster. */
const CHANGING: ReadonlySet<ObjectAction> = new Set([
  "create",
  "update",
  "adopt",
  "delete",
  "release",
  "delete-refused",
]);
/** Actions that mean applying would fail somewhere. */
const FAILING: ReadonlySet<ObjectAction> = new Set(["conflict", "error"]);

export interface ObjectDiff {
  readonly nodeId: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  /** Absent for a pending node whose name is not known yet. */
  readonly name?: string;
  readonly action: ObjectAction;
  /** Why (deleted, refused, failed, pending). */
  readonly reason?: string;
  /** update and adopt: the fields our apply would change. */
  readonly fields?: readonly FieldChange[];
}

export interface InstanceDiff {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** `kro diff -i`: the instance's own changes (spec, labels, annotations); absent: unchanged or new. */
  readonly instance?: { readonly action: "create" | "update" | "unchanged"; readonly fields: readonly FieldChange[] };
  readonly objects: readonly ObjectDiff[];
  /** The instance could not be previewed (the new graph fails for it, its record is unreadable). */
  readonly error?: string;
  /** Under the RGD's spec.rollout: the wave that would move it to the new revision, or its pin. */
  readonly rollout?: WavePreview;
}

export interface CrdDiff {
  readonly name: string;
  readonly action: "create" | "update" | "unchanged" | "refused";
  /** Refused: the gate's message (breaking changes, or a CRD that is not this RGD's), or the API server's. */
  readonly reason?: string;
  /** Refused: who refuses it. */
  readonly refusedBy?: "the breaking-change gate" | "the API server";
  readonly breaking: readonly string[];
  readonly nonBreaking: readonly string[];
}

export interface SummaryLine {
  readonly action: ObjectAction;
  readonly kind: string;
  readonly nodeId: string;
  /** How many objects (over all instances). */
  readonly count: number;
  /** For updates: each changed field with how many objects change it. */
  readonly fields?: readonly { readonly path: string; readonly count: number }[];
  /** For deletions and failures: the distinct reasons. */
  readonly reasons?: readonly string[];
}

export interface DiffSummary {
  readonly instances: number;
  /** Instances with at least one change. */
  readonly changed: number;
  /** Instances where some write would fail, or that could not be previewed. */
  readonly failing: number;
  readonly lines: readonly SummaryLine[];
}

export interface DiffReport {
  /** The RGD the change is to (or that serves the instance, with -i). */
  readonly rgd: string;
  readonly instanceKind: string;
  /** `-f`: why the API server refuses the RGD itself (a dry-run of the write); absent: it accepts it. */
  readonly rgdRefused?: string;
  readonly crd?: CrdDiff;
  /**
   * False when the controller would not serve the new graph (the breaking-change gate refuses its
   * CRD): the instances then keep running the current graph, and their diffs say what would
   * happen once the change is allowed.
   */
  readonly served: boolean;
  readonly instances: readonly InstanceDiff[];
  readonly summary: DiffSummary;
  /** Notes for the reader (a renamed kind, a note about pending nodes). */
  readonly notes: readonly string[];
}

export const isChanging = (o: ObjectDiff): boolean => CHANGING.has(o.action);
export const isFailing = (o: ObjectDiff): boolean => FAILING.has(o.action);

export function instanceChanges(diff: InstanceDiff): boolean {
  return (diff.instance !== undefined && diff.instance.action !== "unchanged") || diff.objects.some(isChanging);
}

export function instanceFails(diff: InstanceDiff): boolean {
  return diff.error !== undefined || diff.objects.some(isFailing);
}

const ORDER: readonly ObjectAction[] = [
  "create",
  "update",
  "adopt",
  "delete",
  "release",
  "delete-refused",
  "conflict",
  "error",
  "pending",
  "deleting",
];

export function summarize(instances: readonly InstanceDiff[]): DiffSummary {
  const groups = new Map<
    string,
    {
      action: ObjectAction;
      kind: string;
      nodeId: string;
      count: number;
      fields: Map<string, number>;
      reasons: Set<string>;
    }
  >();
  for (const instance of instances) {
    for (const object of instance.objects) {
      if (object.action === "unchanged") continue;
      const key = JSON.stringify([object.action, object.kind, object.nodeId]);
      const group = groups.get(key) ?? {
        action: object.action,
        kind: object.kind,
        nodeId: object.nodeId,
        count: 0,
        fields: new Map<string, number>(),
        reasons: new Set<string>(),
      };
      group.count++;
      for (const field of object.fields ?? []) group.fields.set(field.path, (group.fields.get(field.path) ?? 0) + 1);
      if (object.reason !== undefined && object.action !== "create") group.reasons.add(object.reason);
      groups.set(key, group);
    }
  }
  const lines: SummaryLine[] = [...groups.values()]
    .sort(
      (a, b) =>
        ORDER.indexOf(a.action) - ORDER.indexOf(b.action) ||
        compareCodeUnits(a.nodeId, b.nodeId) ||
        compareCodeUnits(a.kind, b.kind),
    )
    .map((g) => ({
      action: g.action,
      kind: g.kind,
      nodeId: g.nodeId,
      count: g.count,
      ...(g.fields.size === 0
        ? {}
        : {
            fields: [...g.fields.entries()]
              .sort((a, b) => b[1] - a[1] || compareCodeUnits(a[0], b[0]))
              .map(([path, count]) => ({ path, count })),
          }),
      ...(g.reasons.size === 0 ? {} : { reasons: [...g.reasons].sort() }),
    }));
  return {
    instances: instances.length,
    changed: instances.filter(instanceChanges).length,
    failing: instances.filter(instanceFails).length,
    lines,
  };
}

/** Exit statuses, diff's convention extended: 0 same, 1 different, 2 trouble, 3 applying would be refused or fail. */
export const DIFF_EXIT = { same: 0, changes: 1, trouble: 2, refused: 3 } as const;

export function exitForReport(report: DiffReport): number {
  if (report.rgdRefused !== undefined || report.crd?.action === "refused" || report.summary.failing > 0)
    return DIFF_EXIT.refused;
  const crdChanges = report.crd !== undefined && report.crd.action !== "unchanged";
  return crdChanges || report.summary.changed > 0 ? DIFF_EXIT.changes : DIFF_EXIT.same;
}
