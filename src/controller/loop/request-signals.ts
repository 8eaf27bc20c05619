/**
 * What the controller's client says about the API server, counted per window for the concurrency
 * limit (concurrency-limit.ts): answers, overload answers, and requests the client's own rate
 * limiter held. Fed from the client's metrics hooks; read and reset once per window.
 */
import { isOverloadAnswer } from "./concurrency-limit.js";

export interface RequestCounts {
  readonly requests: number;
  readonly overloaded: number;
  readonly throttled: number;
}

export class RequestSignals {
  private requests = 0;
  private overloaded = 0;
  private throttled = 0;

  /** A request ended with `status` (0: no answer). */
  answered(status: number): void {
    this.requests++;
    if (isOverloadAnswer(status)) this.overloaded++;
  }

  /** A request waited for the client's rate limiter. */
  heldByLimiter(): void {
    this.throttled++;
  }

  /** The counts since the last take, and a fresh window. */
  take(): RequestCounts {
    const counts = { requests: this.requests, overloaded: this.overloaded, throttled: this.throttled };
    this.requests = 0;
    this.overloaded = 0;
    this.throttled = 0;
    return counts;
  }
}
