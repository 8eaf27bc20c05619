/**
 * What the rollout planner reads and what it decides (docs/design/rollouts.md). Everything it
 * reads is on objects that exist anyway — the instances' metadata and status, the GraphRevisions,
 * the RGD's status — so a restarted or newly elected controller plans the same from the same
 * objects; times are milliseconds since the epoch, from the clock port.
 */
import type { RolloutPolicy } from "../../graph/index.js";

/** One instance as the planner sees it. */
export interface RolloutInstance {
  /** Unique, stable (the work-queue key); the last tie-break of the propagation order. */
  readonly key: string;
  readonly namespace?: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly createdAt: number;
  /** status.graphRevision.assigned: the revision the rollout gave it (absent: never recorded). */
  readonly assigned?: number;
  readonly assignedAt?: number;
  /** status.graphRevision.evaluated: the revision its current status was computed with. */
  readonly evaluated?: number;
  /**
   * When it first was healthy — Ready, and every healthyWhen true — at `evaluated` (absent: not
   * yet). Recorded once and kept while `evaluated` stays, so a wave that was healthy stays done.
   */
  readonly healthyAt?: number;
  /** Why it is not healthy now (its Ready condition, or the healthyWhen check that fails), for messages. */
  readonly unhealthy?: string;
  /** The instance author's pin annotation, as written. */
  readonly pin?: string;
  /** The member clusters its children are placed in, from its inventory (for waves by cluster). */
  readonly clusters?: readonly string[];
  /** status.graphRevision.pinProblem: why its pin was last found not honoured (so it is written once). */
  readonly pinProblem?: string;
}

export interface RejectedRevision {
  readonly revision: number;
  readonly by: "gate" | "command";
  readonly at: number;
}

export interface FailedInstance {
  readonly key: string;
  readonly reason: string;
}

/** The gate failed: nothing moves to `revision` until a resume or a newer revision. */
export interface RolloutHalt {
  readonly revision: number;
  /** Index of the wave it failed in. */
  readonly wave: number;
  readonly at: number;
  readonly instances: readonly FailedInstance[];
}

/** What commands and past verdicts left on the RGD: the only state that is not derived. */
export interface RolloutControl {
  /** The annotation kro.run/rollout-paused. */
  readonly paused: boolean;
  readonly halted?: RolloutHalt;
  readonly rejected: readonly RejectedRevision[];
  /** A resume restarts the deadlines of instances already moved. */
  readonly resumedAt?: number;
}

export interface RolloutInput {
  /** The live RGD's policy; undefined: every instance runs the newest revision, as in kro. */
  readonly policy: RolloutPolicy | undefined;
  /** Live GraphRevision numbers, any order. */
  readonly revisions: readonly number[];
  readonly instances: readonly RolloutInstance[];
  readonly control: RolloutControl;
  readonly now: number;
}

/** Why an instance is given a revision. */
export type MoveReason =
  /** Its wave came. */
  | "wave"
  /** Its author pinned it. */
  | "pin"
  /** It runs a rejected revision: back to the one before. */
  | "rollback"
  /** It runs a revision that is gone, or nothing yet: the target, at once. */
  | "adopt";

export interface RolloutMove {
  readonly key: string;
  /** The revision it runs now (absent: none recorded). */
  readonly from?: number;
  readonly to: number;
  readonly why: MoveReason;
}

export type RolloutPhase =
  | "Complete"
  | "Progressing"
  | "WaitingBetweenWaves"
  | "Paused"
  | "Halted"
  | "RolledBack"
  /** No live revision may be run: every one is rejected. */
  | "NoTarget";

export interface WaveRef {
  readonly index: number;
  readonly name: string;
  readonly of: number;
}

export interface RolloutCondition {
  readonly type: "Propagated";
  readonly status: "True" | "False";
  readonly reason: string;
  readonly message: string;
}

export interface RolloutPlan {
  /** The revision instances move to: the newest live one not rejected. */
  readonly target: number | undefined;
  readonly phase: RolloutPhase;
  /** The wave in progress (or waiting to start). */
  readonly wave?: WaveRef;
  /** To write on the instances, after the verdicts below are recorded. */
  readonly moves: readonly RolloutMove[];
  /** Pins not honoured, and why; those instances follow the rollout. */
  readonly pinProblems: readonly FailedInstance[];
  /** A verdict reached this round, to record on the RGD before any move. */
  readonly halt?: RolloutHalt;
  readonly reject?: RejectedRevision;
  readonly counts: {
    readonly total: number;
    /** Healthy at the target. */
    readonly updated: number;
    /** Moved and not yet healthy, this round's moves included. */
    readonly updating: number;
    /** The cap on `updating`. */
    readonly maxUpdating: number;
  };
  /** When time alone changes the plan (a deadline, the end of a pause); undefined: only events do. */
  readonly nextCheckAt?: number;
  readonly condition: RolloutCondition;
}
