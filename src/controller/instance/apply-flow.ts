/**
 * The apply flow of one pass as a state machine (pure): given what is in flight and what the
 * current evaluation plans, what to do next; given a batch of answers, whether the graph is worth
 * evaluating again. apply-rounds.ts is its I/O loop: it plans, sends, waits, reads the answers and
 * evaluates as told here. The rules:
 * - a write is planned only from an evaluation newer than the last plan, and never while the same
 *   object's write is in flight;
 * - no create is sent before the instance is confirmed: a create waits until nothing is in flight,
 *   then the instance is read (and the graph evaluated again from the fresh copy);
 * - a failed write of this flow stops new sends; every write in flight is still answered;
 * - an answer is worth an evaluation of its own only when another node reads its node, or when it
 *   is the last one in flight;
 * - sends are bounded, for an evaluation that never settles.
 */
import { identityKey } from "../../runtime/index.js";
import type { ApplyStep } from "./apply-plan.js";

export interface FlowState {
  /** Identity keys of the writes sent and not yet answered. */
  readonly inFlight: ReadonlySet<string>;
  /** Rounds of writes sent so far. */
  readonly sends: number;
  /** The evaluation is newer than the last plan: planning may find something new. */
  readonly fresh: boolean;
  /** A write of this flow failed: nothing new is sent. */
  readonly writeFailed: boolean;
}

export const FLOW_START: FlowState = { inFlight: new Set(), sends: 0, fresh: true, writeFailed: false };

/** Whether to plan now: from a fresh evaluation that has no error, and only while no write of this flow failed. */
export function shouldPlan(state: FlowState, evaluationFailed: boolean): boolean {
  return state.fresh && !evaluationFailed && !state.writeFailed;
}

export type Move =
  /** Read the instance, then evaluate again: the first create is next. */
  | { readonly kind: "confirm" }
  /** Send these writes, then wait for answers. */
  | { readonly kind: "send"; readonly steps: readonly ApplyStep[] }
  | { readonly kind: "wait" }
  | { readonly kind: "done" };

/**
 * What to do with `planned` (the writes the evaluation asks for; empty when nothing was planned).
 * `maxSends`: the bound on rounds of writes.
 */
export function nextMove(
  state: FlowState,
  planned: readonly ApplyStep[],
  options: { readonly confirmed: boolean; readonly maxSends: number },
): Move {
  const steps = planned.filter((step) => !state.inFlight.has(identityKey(step.identity)));
  if (steps.length > 0 && state.sends < options.maxSends) {
    const creates = !options.confirmed && steps.some((step) => step.mode === "create");
    if (!creates) return { kind: "send", steps };
    if (state.inFlight.size === 0) return { kind: "confirm" };
  }
  return state.inFlight.size === 0 ? { kind: "done" } : { kind: "wait" };
}

/** The state after planning (the evaluation is no longer fresh), and after `move` was made. */
export function afterMove(state: FlowState, move: Move): FlowState {
  switch (move.kind) {
    case "send":
      return {
        ...state,
        fresh: false,
        sends: state.sends + 1,
        inFlight: new Set([...state.inFlight, ...move.steps.map((step) => identityKey(step.identity))]),
      };
    case "confirm":
      // Evaluated again from the confirmed instance.
      return { ...state, fresh: true };
    case "wait":
    case "done":
      return { ...state, fresh: false };
  }
}

/**
 * The state after a batch of answers was read; `failed`: one of them failed or was refused.
 * `reevaluate`: evaluate again (then the state is fresh); `firstFailure`: this batch stopped the flow.
 */
export function afterAnswers(
  state: FlowState,
  batch: readonly Pick<ApplyStep, "identity" | "nodeId">[],
  failed: boolean,
  feeders: ReadonlySet<string>,
): { readonly state: FlowState; readonly reevaluate: boolean; readonly firstFailure: boolean } {
  const answeredKeys = new Set(batch.map((step) => identityKey(step.identity)));
  const inFlight = new Set([...state.inFlight].filter((key) => !answeredKeys.has(key)));
  if (failed || state.writeFailed)
    return { state: { ...state, inFlight, writeFailed: true }, reevaluate: false, firstFailure: !state.writeFailed };
  const reevaluate = inFlight.size === 0 || batch.some((step) => feeders.has(step.nodeId));
  return { state: { ...state, inFlight, fresh: reevaluate || state.fresh }, reevaluate, firstFailure: false };
}
