/**
 * A Clock that moves only when a test says so. `advance(ms)` fires the timers that fall due, in
 * order of due time (then of creation), and lets the promise chains they start settle after each
 * — so a loop that sleeps, wakes, awaits a fake request and sleeps again runs exactly as it would
 * in real time, in microseconds. Both readings move together: `wallNow()` is `now()` plus an epoch.
 */
import { sleepWith, type Clock, type Timer } from "../../src/controller/clock/index.js";

interface Pending {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/** Lets every promise continuation that is ready run (a macrotask turn flushes all microtasks). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class ManualClock implements Clock {
  private time: number;
  private seq = 0;
  private pending: Pending[] = [];

  constructor(
    start = 1_000,
    private readonly epochMs = Date.UTC(2026, 0, 1),
  ) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  wallNow(): number {
    return this.epochMs + this.time;
  }

  setTimer(fn: () => void, ms: number): Timer {
    const entry: Pending = { at: this.time + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.pending.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /** Timers not fired or cancelled yet. */
  get timers(): number {
    return this.live().length;
  }

  /** When the next timer fires, if any. */
  get nextAt(): number | undefined {
    return this.live()[0]?.at;
  }

  /** Moves time forward by `ms`, firing what falls due on the way (each at its own due time). */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    await settle();
    for (let next = this.live()[0]; next !== undefined && next.at <= until; next = this.live()[0]) {
      this.time = Math.max(this.time, next.at);
      next.cancelled = true;
      next.fn();
      await settle();
    }
    this.time = until;
    await settle();
  }

  private live(): Pending[] {
    this.pending = this.pending.filter((p) => !p.cancelled);
    return this.pending.sort((a, b) => a.at - b.at || a.seq - b.seq);
  }
}
