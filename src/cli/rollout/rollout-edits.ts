/**
 * What `kro rollout pause|resume|undo` write, as JSON merge patches of the RGD (pure). Pause is an
 * annotation (no generation bump, nothing re-issued; GitOps tools keep annotations they do not
 * own). A resume and an undo are verdicts in `status.rollout`, which the controller keeps and acts
 * on; each status patch carries the resourceVersion it was computed from, so it is refused rather
 * than lost when the controller wrote in between (docs/design/rollouts.md).
 */
import { ANNOTATIONS } from "../../api/index.js";

/** The parts of an RGD these edits read. */
export interface RgdView {
  readonly metadata?: {
    readonly name?: string;
    readonly resourceVersion?: string;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec?: { readonly rollout?: unknown };
  readonly status?: { readonly rollout?: RolloutStatusView };
}

export interface RolloutStatusView {
  readonly target?: number;
  readonly halted?: { readonly revision?: number };
  readonly rejected?: readonly { readonly revision?: number; readonly by?: string; readonly at?: string }[];
  readonly resumedAt?: string;
}

/** An edit the RGD's state does not allow, said to the person who asked. */
export class RolloutRefusal extends Error {}

function requirePolicy(rgd: RgdView): void {
  if (rgd.spec?.rollout === undefined)
    throw new RolloutRefusal(
      `${rgd.metadata?.name ?? "the RGD"} has no spec.rollout: every instance takes a new revision at once, there is no rollout to steer`,
    );
}

export function pausePatch(rgd: RgdView): Record<string, unknown> {
  requirePolicy(rgd);
  return { metadata: { annotations: { [ANNOTATIONS.rolloutPaused]: "true" } } };
}

/** Resuming: the pause annotation goes, and the status patch clearing a halt (and, with `retry`, every rejection). */
export function resumePatches(
  rgd: RgdView,
  now: Date,
  retry: boolean,
): { annotationPatch?: Record<string, unknown>; statusPatch?: Record<string, unknown> } {
  requirePolicy(rgd);
  const paused = rgd.metadata?.annotations?.[ANNOTATIONS.rolloutPaused] !== undefined;
  const rollout = rgd.status?.rollout;
  const clears = rollout?.halted !== undefined || (retry && (rollout?.rejected?.length ?? 0) > 0);
  if (!paused && !clears)
    throw new RolloutRefusal(
      `${rgd.metadata?.name ?? "the RGD"}'s rollout is neither paused nor halted${retry ? " and rejects no revision" : ""}: nothing to resume`,
    );
  return {
    ...(paused ? { annotationPatch: { metadata: { annotations: { [ANNOTATIONS.rolloutPaused]: null } } } } : {}),
    ...(clears
      ? {
          statusPatch: {
            metadata: { resourceVersion: rgd.metadata?.resourceVersion },
            status: {
              rollout: { halted: null, resumedAt: now.toISOString(), ...(retry ? { rejected: null } : {}) },
            },
          },
        }
      : {}),
  };
}

/**
 * Undoing: the target (or, with `toRevision`, every revision above it up to the target) is
 * rejected by command; the controller moves its instances back at once.
 */
export function undoPatch(rgd: RgdView, now: Date, toRevision?: number): Record<string, unknown> {
  requirePolicy(rgd);
  const target = rgd.status?.rollout?.target;
  if (target === undefined)
    throw new RolloutRefusal(
      `${rgd.metadata?.name ?? "the RGD"} reports no rollout target yet (status.rollout.target): nothing to undo`,
    );
  const lowest = toRevision === undefined ? target : toRevision + 1;
  if (lowest > target || lowest < 1)
    throw new RolloutRefusal(`--to-revision ${String(toRevision)} is not below the target revision ${target}`);
  const kept = (rgd.status?.rollout?.rejected ?? []).filter(
    (r) => r.revision === undefined || r.revision < lowest || r.revision > target,
  );
  const at = now.toISOString();
  const added = Array.from({ length: target - lowest + 1 }, (_, i) => ({ revision: lowest + i, by: "command", at }));
  return {
    metadata: { resourceVersion: rgd.metadata?.resourceVersion },
    status: { rollout: { rejected: [...kept, ...added] } },
  };
}
