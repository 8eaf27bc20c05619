/**
 * What the controller's loops need of time. Two readings, kept apart on purpose: `now()` is
 * monotonic (durations, deadlines and lease expiry must not jump when NTP steps the wall clock),
 * `wallNow()` is the epoch time written into objects (a Lease's renewTime, a timestamp).
 */
export interface Clock {
  /** Monotonic milliseconds; only differences mean anything. */
  now(): number;
  /** Milliseconds since the Unix epoch, for timestamps other processes read. */
  wallNow(): number;
  /** Calls `fn` once after `ms`. */
  setTimer(fn: () => void, ms: number): Timer;
  /** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Timer {
  cancel(): void;
}

/** A sleep built on any clock's timers (the system clock's, a test's fake one). */
export function sleepWith(clock: Pick<Clock, "setTimer">, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = (): void => {
      timer.cancel();
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = clock.setTimer(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * The process's clocks: `performance.now()`, `Date.now()` and Node's timers (which keep the
 * process alive while pending, as before: a lone leader election must not exit under its caller).
 */
export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return {
      cancel: () => {
        clearTimeout(handle);
      },
    };
  },
  sleep(ms, signal) {
    return sleepWith(systemClock, ms, signal);
  },
};
