/**
 * The outer time limit of one job on a worker thread (a chart render, an instance evaluation):
 * the job stops itself at its own deadline (cooperative, in the thread's work clock); this stops
 * the thread from outside when it has worked its limit and a grace past it, or — a thread that
 * does not work, blocked or starved — after WALL_LIMIT_FACTOR times that in wall time.
 */
import { performance } from "node:perf_hooks";

/** How long after its own deadline a job's thread is terminated (the cooperative stop comes first). */
export const TERMINATE_GRACE_MS = 1000;
/**
 * A thread that does not work (blocked, or starved for that long) is still stopped after this
 * many times the limit in wall time; where its CPU time cannot be read, after the limit + grace.
 * Wide: a starved node (a process stopped 250 ms of every 265, on a loaded CI machine) reached 10×
 * with a healthy pass, and a thread blocked for good is a bug this only bounds.
 */
const WALL_LIMIT_FACTOR = 30;

export interface ThreadTimeLimit {
  /** The job's own deadline, ms of the thread's work. */
  readonly deadlineMs: number;
  /** The thread's CPU time now, ms (undefined: unknown yet, or unreadable here). */
  readonly cpu: () => number | undefined;
  /** The thread's CPU time when it became ready, for a thread that had not said its id at the start. */
  readonly readyCpu: () => number | undefined;
  /** Whether the job is still the one the thread runs. */
  readonly running: () => boolean;
  /** Terminate the thread and answer the job. */
  readonly expire: () => void;
}

/** Arms the limit; `timers.current` always holds the timer to clear when the job ends first. */
export function armThreadTimeLimit(limit: ThreadTimeLimit, timers: { current?: NodeJS.Timeout }): void {
  const total = limit.deadlineMs + TERMINATE_GRACE_MS;
  // A thread that has not said its id yet is new: its work is counted from when it was ready, so
  // its start-up (loading the engine, seconds on a loaded machine) is not charged to the job.
  const cpuAtStart = limit.cpu();
  const wallAtStart = performance.now();
  const arm = (ms: number): void => {
    timers.current = setTimeout(check, ms);
    timers.current.unref();
  };
  const check = (): void => {
    if (!limit.running()) return;
    const cpuNow = limit.cpu();
    const from = cpuAtStart ?? limit.readyCpu() ?? 0;
    // Without a reading of the thread's work, only the wall-time bound below applies.
    const worked = cpuNow === undefined ? 0 : cpuNow - from;
    const wallLeft = WALL_LIMIT_FACTOR * total - (performance.now() - wallAtStart);
    if (worked < total && wallLeft > 0) arm(Math.min(total - worked, wallLeft));
    else limit.expire();
  };
  arm(total);
}
