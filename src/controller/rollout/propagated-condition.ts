/**
 * The RGD's `Propagated` condition for a rollout plan: kro's proposed condition and its reasons
 * (AllPropagated, PropagationInProgress) plus ours for the states kro does not have. Outside the
 * Ready hierarchy: an RGD whose rollout halted still serves its kind.
 */
import type {
  FailedInstance,
  RejectedRevision,
  RolloutCondition,
  RolloutHalt,
  RolloutPhase,
  WaveRef,
} from "./rollout-state.js";

export interface ConditionFacts {
  readonly phase: RolloutPhase;
  readonly target: number | undefined;
  readonly newest: number | undefined;
  readonly rejected: readonly RejectedRevision[];
  readonly counts: {
    readonly total: number;
    readonly updated: number;
    readonly updating: number;
    readonly maxUpdating: number;
  };
  readonly pinned: number;
  readonly wave?: WaveRef;
  readonly halt?: RolloutHalt;
  /** Where a rollback returns instances to. */
  readonly back?: number;
  readonly nextCheckAt?: number;
  readonly nameOf: (key: string) => string;
}

/** Failing instances named in a message: the first few, then a count. */
const NAMED_FAILURES = 5;

export function rolloutCondition(facts: ConditionFacts): RolloutCondition {
  const { phase, target, counts } = facts;
  const healthy = `${counts.updated}/${counts.total} instances healthy at revision ${target ?? "-"}`;
  const pinned = facts.pinned > 0 ? ` (${facts.pinned} pinned)` : "";
  const wave = facts.wave === undefined ? "" : `wave ${facts.wave.index + 1}/${facts.wave.of} (${facts.wave.name})`;
  switch (phase) {
    case "NoTarget":
      return notYet("NoRevision", "every live GraphRevision was rolled back: no revision may run");
    case "Complete": {
      const newest = facts.newest;
      if (newest !== undefined && newest !== target) {
        const rejection = facts.rejected.find((r) => r.revision === newest);
        const by = rejection?.by === "command" ? "by kro rollout undo" : "by its gate";
        return notYet("RolledBack", `revision ${newest} was rolled back ${by}; ${healthy}${pinned}`);
      }
      return { type: "Propagated", status: "True", reason: "AllPropagated", message: `${healthy}${pinned}` };
    }
    case "Progressing":
      return notYet(
        "PropagationInProgress",
        `${wave}: ${healthy}, ${counts.updating} updating (at most ${counts.maxUpdating})${pinned}`,
      );
    case "WaitingBetweenWaves":
      return notYet(
        "WaitingBetweenWaves",
        `${wave} starts at ${facts.nextCheckAt === undefined ? "-" : new Date(facts.nextCheckAt).toISOString()}; ${healthy}${pinned}`,
      );
    case "Paused":
      return notYet("Paused", `paused (kro rollout resume) in ${wave}: ${healthy}${pinned}`);
    case "Halted":
      return notYet(
        "Halted",
        `revision ${target ?? "-"} failed the gate in ${wave}: ${failures(facts)}; nothing further moves until kro rollout resume or a newer revision`,
      );
    case "RolledBack":
      return notYet(
        "RolledBack",
        `revision ${target ?? "-"} failed the gate in ${wave}: ${failures(facts)}; ${
          facts.back === undefined
            ? "no earlier revision to return to"
            : `its instances return to revision ${facts.back}`
        }`,
      );
  }
}

function notYet(reason: string, message: string): RolloutCondition {
  return { type: "Propagated", status: "False", reason, message };
}

function failures(facts: ConditionFacts): string {
  const list: readonly FailedInstance[] = facts.halt?.instances ?? [];
  const named = list.slice(0, NAMED_FAILURES).map((f) => `${facts.nameOf(f.key)}: ${f.reason}`);
  const more = list.length > NAMED_FAILURES ? `; and ${list.length - NAMED_FAILURES} more` : "";
  return `${named.join("; ")}${more}`;
}
