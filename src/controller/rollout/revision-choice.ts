/**
 * Which revision is the target, where a rejected revision's instances return to, and whether an
 * instance's pin is honoured: pure rules over the live revision numbers.
 */
import type { RolloutPolicy } from "../../graph/index.js";
import type { RejectedRevision } from "./rollout-state.js";

export interface RevisionView {
  /** Live revisions, newest first. */
  readonly live: readonly number[];
  readonly rejected: ReadonlySet<number>;
  /** The newest live revision not rejected: where instances move. */
  readonly target: number | undefined;
}

export function revisionView(revisions: readonly number[], rejected: readonly RejectedRevision[]): RevisionView {
  const live = [...new Set(revisions)].sort((a, b) => b - a);
  const rejectedSet = new Set(rejected.map((r) => r.revision));
  return { live, rejected: rejectedSet, target: live.find((r) => !rejectedSet.has(r)) };
}

/** Where an instance on `revision` returns to: the newest live revision below it that is not rejected. */
export function fallbackBelow(view: RevisionView, revision: number): number | undefined {
  return view.live.find((r) => r < revision && !view.rejected.has(r));
}

export type PinVerdict =
  { readonly honoured: true; readonly revision: number } | { readonly honoured: false; readonly problem: string };

/**
 * A pin is honoured only within the RGD author's bound: a live revision, not rejected, not above
 * the target, at most `maxRevisionsBack` below it. Anything else is reported and ignored.
 */
export function judgePin(pin: string, policy: RolloutPolicy, view: RevisionView): PinVerdict {
  const text = pin.trim();
  if (!/^[0-9]+$/.test(text))
    return { honoured: false, problem: `pin ${JSON.stringify(pin)} is not a revision number` };
  const revision = Number(text);
  if (policy.maxRevisionsBack === 0)
    return {
      honoured: false,
      problem: `pin to revision ${revision} refused: the RGD allows no pins (spec.rollout.pinning)`,
    };
  if (!view.live.includes(revision))
    return {
      honoured: false,
      problem: `pinned revision ${revision} is gone (GraphRevisions kept: ${view.live.join(", ") || "none"})`,
    };
  if (view.rejected.has(revision))
    return { honoured: false, problem: `pin to revision ${revision} refused: it was rolled back` };
  const target = view.target;
  if (target === undefined)
    return { honoured: false, problem: `pin to revision ${revision} refused: no revision may run` };
  if (revision > target)
    return {
      honoured: false,
      problem: `pin to revision ${revision} refused: it is above the rollout's target ${target}`,
    };
  if (target - revision > policy.maxRevisionsBack)
    return {
      honoured: false,
      problem: `pin to revision ${revision} refused: the RGD allows pins at most ${policy.maxRevisionsBack} below the target ${target}`,
    };
  return { honoured: true, revision };
}
