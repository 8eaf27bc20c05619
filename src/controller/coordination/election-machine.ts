/**
 * Leader election's decisions, as a pure state machine (client-go's leaderelection, with its
 * rules written down as transitions). `stepElection(state, event, input)` returns the next state
 * and the actions the executor (leader-election.ts) performs: one Lease request at a time, one
 * wait, the fence's deadline. No I/O, no clock of its own: time and jitter come in `input`.
 *
 *   candidate ──tick──▶ attempt ──written──▶ leader (fence held until sent + renewDeadline)
 *       ▲                  └──refused/failed──▶ wait: a jittered retry period, or until the
 *       └──────────────────────────────────────  Lease seen runs out by our clock, if sooner
 *   leader ──tick──▶ attempt (bounded by what is left of the renew deadline)
 *          ──written──▶ fence extended to sent + renewDeadline
 *          ──refused──▶ lost (someone else holds the Lease)
 *          ──deadline passed (no renewal sent in time, even with a request hanging)──▶ lost
 *   any ──stop──▶ stopped (a leader releases the Lease, its fence closed first)
 *
 * Safety rests on renewDeadline < leaseDuration: a standby counts leaseDuration from when it saw
 * the last renewal, which was sent before it was seen, so the old leader's fence has closed by
 * the time any standby may acquire.
 */
import { JITTER_FACTOR, type LeaseTiming } from "./lease-record.js";

export type ElectionPhase = "candidate" | "leader" | "stopped";

export interface ElectionState {
  readonly phase: ElectionPhase;
  /** While leader: the fence closes at this monotonic time unless a renewal is sent before. */
  readonly fenceDeadline: number;
}

/** What one Lease request found, as the executor saw it. */
export type AttemptOutcome =
  | { readonly kind: "written"; readonly sentAt: number }
  | { readonly kind: "refused"; readonly holder: string; readonly lease: LeaseView }
  | { readonly kind: "failed"; readonly error: string; readonly lease: LeaseView };

/** The Lease as last observed: whether another holds it, and when it runs out by our clock. */
export interface LeaseView {
  readonly heldByOther: boolean;
  readonly msUntilExpiry: number;
}

export type ElectionEvent =
  | { readonly type: "tick" }
  | { readonly type: "attempted"; readonly outcome: AttemptOutcome }
  | { readonly type: "deadline" }
  | { readonly type: "stop" };

export type ElectionAction =
  | { readonly type: "attempt"; readonly timeoutMs: number }
  | { readonly type: "wait"; readonly ms: number }
  | { readonly type: "hold"; readonly until: number }
  | { readonly type: "acquired" }
  | { readonly type: "lost"; readonly why: string }
  | { readonly type: "refused"; readonly holder: string }
  | { readonly type: "failed"; readonly error: string };

/** The time and randomness one step may use. */
export interface StepInput {
  readonly now: number;
  /** Uniform in [0, 1): spreads retries over [retryPeriod, retryPeriod × JITTER_FACTOR). */
  readonly jitter: number;
}

export interface ElectionStep {
  readonly state: ElectionState;
  readonly actions: readonly ElectionAction[];
}

/** A candidate that wakes at the expiry it computed looks a moment later, so the lease has surely run out. */
export const EXPIRY_MARGIN_MS = 20;

export const RENEW_DEADLINE_PASSED = "could not renew the lease within the renew deadline";

export const initialElection: ElectionState = { phase: "candidate", fenceDeadline: -Infinity };

export function stepElection(
  state: ElectionState,
  event: ElectionEvent,
  input: StepInput,
  timing: LeaseTiming,
): ElectionStep {
  if (state.phase === "stopped") return { state, actions: [] };
  if (event.type === "stop") return { state: { ...state, phase: "stopped" }, actions: [] };
  const retry = timing.retryPeriodMs * (1 + input.jitter * (JITTER_FACTOR - 1));
  const lose = (why: string): ElectionStep => ({
    state: { phase: "stopped", fenceDeadline: state.fenceDeadline },
    actions: [{ type: "lost", why }],
  });
  const stay = (...actions: ElectionAction[]): ElectionStep => ({ state, actions });

  if (state.phase === "candidate") {
    switch (event.type) {
      case "tick":
        return stay({ type: "attempt", timeoutMs: timing.renewDeadlineMs });
      case "deadline":
        return stay();
      case "attempted": {
        const { outcome } = event;
        if (outcome.kind === "written") {
          const until = outcome.sentAt + timing.renewDeadlineMs;
          return {
            state: { phase: "leader", fenceDeadline: until },
            actions: [{ type: "hold", until }, { type: "acquired" }, { type: "wait", ms: retry }],
          };
        }
        const report: ElectionAction =
          outcome.kind === "refused"
            ? { type: "refused", holder: outcome.holder }
            : { type: "failed", error: outcome.error };
        return stay(report, { type: "wait", ms: candidateWait(retry, outcome.lease) });
      }
    }
  }
  // Leader.
  switch (event.type) {
    case "tick": {
      const remaining = state.fenceDeadline - input.now;
      return remaining <= 0 ? lose(RENEW_DEADLINE_PASSED) : stay({ type: "attempt", timeoutMs: remaining });
    }
    case "deadline":
      return input.now >= state.fenceDeadline ? lose(RENEW_DEADLINE_PASSED) : stay();
    case "attempted": {
      const { outcome } = event;
      if (outcome.kind === "written") {
        const until = outcome.sentAt + timing.renewDeadlineMs;
        return {
          state: { phase: "leader", fenceDeadline: until },
          actions: [
            { type: "hold", until },
            { type: "wait", ms: retry },
          ],
        };
      }
      if (outcome.kind === "refused") return lose(`the lease was taken by ${outcome.holder || "another candidate"}`);
      return stay({ type: "failed", error: outcome.error }, { type: "wait", ms: retry });
    }
  }
}

/**
 * A candidate looks again after a jittered retry period — or right when the Lease it saw runs
 * out by its own clock, if that is sooner (client-go waits for its next tick: up to 1.2 retry
 * periods more of failover). Safety is unchanged: expiry is still judged on local observation.
 */
function candidateWait(retry: number, lease: LeaseView): number {
  if (!lease.heldByOther) return retry;
  return lease.msUntilExpiry < retry ? lease.msUntilExpiry + EXPIRY_MARGIN_MS : retry;
}
