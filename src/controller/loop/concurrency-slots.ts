/**
 * Slots for keys in flight under a limit that may change while keys run: a lowered limit takes
 * effect as running keys finish (none is interrupted), a raised one wakes waiting workers at once.
 * Waiters are served in arrival order.
 */
export class ConcurrencySlots {
  private running = 0;
  private current: number;
  private closed = false;
  private readonly waiters: (() => void)[] = [];

  constructor(limit: number) {
    this.current = Math.max(1, limit);
  }

  get limit(): number {
    return this.current;
  }

  set limit(limit: number) {
    this.current = Math.max(1, limit);
    this.wake();
  }

  /** Slots taken now (may exceed the limit for a while after it was lowered). */
  get taken(): number {
    return this.running;
  }

  /** Resolves when a slot is ours; give it back with release(). */
  acquire(): Promise<void> {
    if (this.closed || this.running < this.current) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    this.running = Math.max(0, this.running - 1);
    this.wake();
  }

  /** Lets every waiter through (shutting down: the workers must reach their queue's end). */
  close(): void {
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    while (this.waiters.length > 0 && (this.closed || this.running < this.current)) {
      this.running++;
      this.waiters.shift()?.();
    }
  }
}
