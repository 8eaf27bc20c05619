/**
 * How many instances the controller reconciles at once, following the API server instead of a
 * constant. An instance's reconcile is a short chain of round trips (its metadata write, one apply
 * wave per dependency level, its status write), so with a fixed number of workers a slow API
 * server leaves most of the client's request budget unused exactly when the cluster is slowest.
 *
 * The limit moves once per window, in the manner of TCP's congestion window (AIMD, as in Reno):
 * - the server says it is overloaded (429, 503, 504, or no answer): the limit shrinks by a
 *   factor and growth becomes cautious (the threshold drops to the new limit);
 * - the client's own rate limiter held most requests: the request budget is what paces the work,
 *   more instances in flight would only wait in it while holding memory, so the limit gives one
 *   back (it settles where about half the requests wait for the limiter: the pipe full, no more);
 * - the event loop itself was the bound (busy most of the window): more keys in flight would only
 *   queue their work on it, later for everyone — a tenant's cheap instance behind another's
 *   expensive passes — so the limit gives one back;
 * - every slot was taken while keys waited, and the event loop had room: the limit grows, fast
 *   (×1.5) below the threshold, by one above it — unless the window already sent about as many
 *   requests as the client's rate limit allows (while the limiter's burst lasts nobody waits, yet
 *   the budget is spent just the same): then it holds, and growth is cautious from then on;
 * - otherwise (idle, or no backlog) it stays.
 * It never leaves [min, max]. Pure: the caller measures the window and applies the limit.
 */

export interface ConcurrencyBounds {
  /** The limit at start and its floor: what `--workers` says. */
  readonly min: number;
  /** Its ceiling: the memory the controller may spend on instances in flight. */
  readonly max: number;
}

export interface ConcurrencyState {
  readonly limit: number;
  /** Below it the limit grows by half, above it by one (TCP's slow-start threshold). */
  readonly threshold: number;
}

/** What one window saw. */
export interface ConcurrencyWindow {
  /** Requests answered (or failed) in the window. */
  readonly requests: number;
  /** Of them, answers that say the server is overloaded or away: 429, 503, 504, no answer. */
  readonly overloaded: number;
  /** Requests that waited for the client's rate limiter. */
  readonly throttled: number;
  /** Share of the window (0–1) during which every slot ran a key while other keys waited. */
  readonly saturated: number;
  /** Share of the window (0–1) the event loop was busy. */
  readonly busy: number;
  /** Requests the client's rate limit allows in the window (absent: none known). */
  readonly budget?: number;
}

export type ConcurrencyReason = "overloaded" | "throttled" | "busy" | "grew" | "steady";

/** A share of requests held by the client's rate limiter above which it, not latency, paces the work. */
export const THROTTLED_SHARE = 0.5;
/** A window that sent this share of the client's request budget has used it. */
export const BUDGET_SHARE = 0.9;
/** Saturated for at least this share of a window: more slots would have been used. */
export const SATURATED_SHARE = 0.5;
/** An event loop busier than this is the bound: more work in flight only waits on it. */
export const BUSY_SHARE = 0.9;
/** The factor the limit shrinks by when the server is overloaded. */
export const DECREASE_FACTOR = 0.7;

export function initialConcurrency(bounds: ConcurrencyBounds): ConcurrencyState {
  return { limit: bounds.min, threshold: bounds.max };
}

export function stepConcurrency(
  state: ConcurrencyState,
  window: ConcurrencyWindow,
  bounds: ConcurrencyBounds,
): ConcurrencyState & { readonly reason: ConcurrencyReason } {
  const clamp = (n: number): number => Math.min(bounds.max, Math.max(bounds.min, n));
  if (window.overloaded > 0) {
    const limit = clamp(Math.floor(state.limit * DECREASE_FACTOR));
    return { limit, threshold: limit, reason: "overloaded" };
  }
  if (window.requests > 0 && window.throttled / window.requests > THROTTLED_SHARE) {
    const limit = clamp(state.limit - 1);
    return { limit, threshold: Math.min(state.threshold, limit), reason: "throttled" };
  }
  if (window.busy >= BUSY_SHARE) {
    const limit = clamp(state.limit - 1);
    return { limit, threshold: Math.min(state.threshold, limit), reason: "busy" };
  }
  const budgetSpent =
    window.budget !== undefined && window.budget > 0 && window.requests >= BUDGET_SHARE * window.budget;
  if (window.saturated >= SATURATED_SHARE && state.limit < bounds.max && budgetSpent)
    return { limit: state.limit, threshold: Math.min(state.threshold, state.limit), reason: "throttled" };
  if (window.saturated >= SATURATED_SHARE && state.limit < bounds.max) {
    const grown = state.limit < state.threshold ? Math.ceil(state.limit * 1.5) : state.limit + 1;
    return { limit: clamp(grown), threshold: state.threshold, reason: "grew" };
  }
  return { ...state, reason: "steady" };
}

/** Whether an answer says the server is overloaded or away (status 0: no answer at all). */
export function isOverloadAnswer(status: number): boolean {
  return status === 0 || status === 429 || status === 503 || status === 504;
}
