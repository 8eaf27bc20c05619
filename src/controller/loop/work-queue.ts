/**
 * A level-based work queue of keys, with client-go's guarantees: a key is queued at most once,
 * never processed by two workers at once (a key added while in flight is re-queued when its
 * worker is done), delayed adds, and per-key exponential backoff for failures.
 */
export interface WorkQueueOptions {
  /** First retry delay after a failure; doubles per consecutive failure of the same key. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(options: WorkQueueOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 300_000;
  }

  /** Keys waiting to be processed (not counting delayed ones or those in flight). */
  get isShutDown(): boolean {
    return this.shuttingDown;
  }

  get length(): number {
    return this.queue.length;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return; // done() re-queues it
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
    } else {
      this.queue.push(key);
    }
  }

  /** Adds the key after a delay; an earlier pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const pending = this.timers.get(key);
    if (pending !== undefined && pending.at <= at) return;
    if (pending !== undefined) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    this.timers.set(key, { at, timer });
  }

  /** Re-queues a failed key after its backoff: base × 2^(failures−1), capped. Returns the delay. */
  addRateLimited(key: string): number {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(failures - 1, 40));
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears the failure history of a key (after a success). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  failureCount(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process; undefined once the queue is shut down. Call done(key) afterwards. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      this.add(key);
    }
  }

  /** Stops handing out keys: waiting get() calls resolve with undefined; delayed adds are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queue.length = 0;
    this.dirty.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
