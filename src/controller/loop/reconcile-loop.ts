/**
 * Workers that drain a WorkQueue through a reconcile function, with controller-runtime's result
 * semantics: success forgets the key's failures, `requeueAfterMs` delays, an error backs off
 * per key, a TerminalError is not retried. One slow or failing key never blocks the others.
 */
import { systemClock, type Clock } from "../clock/index.js";
import type { ConcurrencySlots } from "./concurrency-slots.js";
import type { WorkQueue } from "./work-queue.js";

export interface ReconcileResult {
  readonly requeueAfterMs?: number;
}

/** An error that retrying cannot fix (e.g. an invalid object): logged once, not requeued. */
export class TerminalError extends Error {
  override readonly name = "TerminalError";
}

export function isTerminal(error: unknown): boolean {
  return error instanceof TerminalError;
}

/** A failure the server caused (no answer, 5xx, 429), e.g. of writes whose own errors were kept as text: retried at once when the server is back. */
export class TransientError extends Error {
  override readonly name = "TransientError";
}

export type ReconcileOutcome =
  | { readonly kind: "success"; readonly requeueAfterMs?: number }
  | { readonly kind: "error"; readonly error: unknown; readonly retryInMs: number }
  | { readonly kind: "terminal"; readonly error: unknown };

export interface ReconcileLoopOptions {
  readonly queue: WorkQueue;
  /** Workers started: with `slots`, the most keys that can ever run at once. */
  readonly workers: number;
  /** A limit below `workers` that may change while the loop runs (adaptive-concurrency.ts). */
  readonly slots?: ConcurrencySlots;
  readonly reconcile: (key: string) => Promise<ReconcileResult>;
  /** Whether a failure is the server's (no answer, 5xx, 429): such keys lose their backoff when it is back (WorkQueue.retryTransientNow). TransientError always is. */
  readonly isTransient?: (error: unknown) => boolean;
  /** Observability hook: called once per processed key with its outcome and duration. */
  readonly onOutcome?: (key: string, outcome: ReconcileOutcome, durationMs: number) => void;
  /** Measures the durations reported to onOutcome (default: the system's clock). */
  readonly clock?: Clock;
}

export interface ReconcileLoop {
  /** Resolves when every worker has finished its in-flight key after the queue shut down. */
  readonly stopped: Promise<void>;
  /** Workers still running (fewer than `workers` means one died: the process is unhealthy). */
  readonly alive: number;
  readonly workers: number;
}

async function worker(options: ReconcileLoopOptions): Promise<void> {
  const { queue } = options;
  const clock = options.clock ?? systemClock;
  for (;;) {
    await options.slots?.acquire();
    const key = await queue.get();
    if (key === undefined) {
      options.slots?.release();
      return;
    }
    const started = clock.now();
    let outcome: ReconcileOutcome;
    try {
      const result = await options.reconcile(key);
      queue.forget(key);
      if (result.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
      outcome =
        result.requeueAfterMs === undefined
          ? { kind: "success" }
          : { kind: "success", requeueAfterMs: result.requeueAfterMs };
    } catch (error) {
      if (isTerminal(error)) {
        queue.forget(key);
        outcome = { kind: "terminal", error };
      } else {
        const transient = error instanceof TransientError || options.isTransient?.(error) === true;
        outcome = { kind: "error", error, retryInMs: queue.addRateLimited(key, { transient }) };
      }
    } finally {
      queue.done(key);
      options.slots?.release();
    }
    options.onOutcome?.(key, outcome, clock.now() - started);
  }
}

export function startReconcileLoop(options: ReconcileLoopOptions): ReconcileLoop {
  const count = Math.max(1, options.workers);
  let alive = count;
  const workers = Array.from({ length: count }, () =>
    worker(options).finally(() => {
      alive--;
    }),
  );
  return {
    workers: count,
    stopped: Promise.all(workers).then(() => undefined),
    get alive() {
      return alive;
    },
  };
}
