/**
 * rollout: the pure planner of progressive propagation (docs/design/rollouts.md) — from an RGD's
 * policy, its instances' recorded revisions and health, its GraphRevisions, its verdicts and the
 * time: which instances move now, the wave, the gate's verdict, the `Propagated` condition. No
 * I/O and no memory between calls; knows no other room (the RGD reconcile reads and writes).
 */
export { runningRevision, planRollout, updatingCap, formatMs } from "./rollout-plan.js";
export { judgePin, fallbackBelow, revisionView, type PinVerdict, type RevisionView } from "./revision-choice.js";
export { assignWaves, IMPLICIT_WAVE, propagationOrder, wavesOf, type WaveMembers } from "./wave-membership.js";
export type {
  FailedInstance,
  MoveReason,
  RejectedRevision,
  RolloutCondition,
  RolloutControl,
  RolloutHalt,
  RolloutInput,
  RolloutInstance,
  RolloutMove,
  RolloutPhase,
  RolloutPlan,
  WaveRef,
} from "./rollout-state.js";
export {
  assignmentPatch,
  pinNotePatch,
  pinNotes,
  rolloutControlOf,
  rolloutInstanceOf,
  rolloutStatusOf,
  type ObjectView,
} from "./rollout-records.js";
export { previewKey, previewWaves, type WavePreview } from "./wave-preview.js";
