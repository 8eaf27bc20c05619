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
  /** Requests the client's rate limit allows in the window (absent: no limit known). */
  readonly budget?: number;
}

export class RequestSignals {
  private requests = 0;
  private overloaded = 0;
  private throttled = 0;
  /** When the window being counted began: counts and budget cover the same time. */
  private since: number;

  /**
   * `qps`: the client's sustained rate limit (0 or absent: none known). A window that sent about
   * that many requests used the budget even while the limiter's burst kept anyone from waiting.
   */
  constructor(
    private readonly qps = 0,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.since = now();
  }

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
    const now = this.now();
    const seconds = (now - this.since) / 1000;
    this.since = now;
    const counts = {
      requests: this.requests,
      overloaded: this.overloaded,
      throttled: this.throttled,
      ...(this.qps > 0 && Number.isFinite(this.qps) ? { budget: this.qps * seconds } : {}),
    };
    this.requests = 0;
    this.overloaded = 0;
    this.throttled = 0;
    return counts;
  }
}
