/**
 * Client-side QPS/burst limit: one token bucket shared by every request of a client, so a busy
 * controller cannot flood the API server. Waiters are served in arrival order.
 */
export interface RateLimitOptions {
  /** Sustained requests per second; 0 or Infinity disables limiting. */
  readonly qps: number;
  /** Requests allowed at once after idling. */
  readonly burst: number;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = Math.max(1, options.burst);
    this.last = now();
  }

  get enabled(): boolean {
    return this.options.qps > 0 && Number.isFinite(this.options.qps);
  }

  /** Waits for a token; resolves with how long it waited (ms). */
  acquire(): Promise<number> {
    if (!this.enabled) return Promise.resolve(0);
    const start = this.now();
    const turn = this.queue.then(async () => {
      const wait = this.reserve();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    });
    this.queue = turn;
    return turn.then(() => this.now() - start);
  }

  /** Takes a token now (possibly going negative) and returns how long until it is really ours. */
  private reserve(): number {
    const now = this.now();
    const burst = Math.max(1, this.options.burst);
    this.tokens = Math.min(burst, this.tokens + ((now - this.last) / 1000) * this.options.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.options.qps) * 1000;
  }
}
