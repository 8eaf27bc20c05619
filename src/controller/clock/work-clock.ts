/**
 * A clock of one thread's work, for the deadlines of evaluation passes and chart renders. Wall
 * time on a busy machine also counts the turns of every other process and thread: a pass of
 * 300 ms of work can take 2 s of wall time on a starved 2-core node, and a wall-clock deadline
 * then turns a healthy instance into ERROR. A thread's CPU time counts only what the thread did.
 *
 * Linux tells a thread's CPU time in `/proc/thread-self/stat` (another thread's in
 * `/proc/self/task/<tid>/stat`), in clock ticks of 10 ms. Reading it costs a few microseconds, and
 * deadlines are asked about every few hundred template steps, so the clock keeps its last reading
 * and advances it by the wall clock — an upper bound, since a thread cannot work faster than
 * time passes — and reads again once that estimate is REREAD_MS old. So it runs slow by at most
 * one tick (a hostile loop is stopped on time) and, when the thread was starved or idle, fast by at
 * most REREAD_MS until the next reading. It never steps back: past an estimate the reading did not
 * confirm it stands still until the work catches up, so the difference of two readings is never
 * negative (it is what passes are charged). A clock made when a piece of work starts reads the
 * kernel first, so that work is measured from an exact reading, not from an estimate that counted
 * the thread's idle time. Where /proc has no thread files (not Linux) it is the wall clock.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/** Linux reports thread CPU time in USER_HZ ticks, 100 per second on every architecture it runs on. */
const TICK_MS = 10;
/** How long the wall clock may stand in for the thread's CPU time before it is read again. */
export const REREAD_MS = 20;

/** The fields of a /proc stat line after the command name (which may hold spaces and parentheses). */
function statFields(text: string): string[] | undefined {
  const end = text.lastIndexOf(")");
  return end < 0 ? undefined : text.slice(end + 2).split(" ");
}

function readStat(path: string): string | undefined {
  try {
    return readFileSync(path, "latin1");
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) of a thread of this process, ms; this thread when `tid` is absent. */
export function threadCpuMs(tid?: number): number | undefined {
  const text = readStat(tid === undefined ? "/proc/thread-self/stat" : `/proc/self/task/${tid}/stat`);
  const fields = text === undefined ? undefined : statFields(text);
  // utime and stime are fields 14 and 15 of the line; the first two (pid, comm) come before `)`.
  const user = Number(fields?.[11]);
  const system = Number(fields?.[12]);
  return Number.isFinite(user) && Number.isFinite(system) ? (user + system) * TICK_MS : undefined;
}

/** The kernel's id of the calling thread (Linux), so another thread can read its CPU time. */
export function osThreadId(): number | undefined {
  const text = readStat("/proc/thread-self/stat");
  const id = text === undefined ? NaN : Number(text.slice(0, text.indexOf(" ")));
  return Number.isSafeInteger(id) ? id : undefined;
}

export interface WorkClockSources {
  /** The thread's CPU time, ms (undefined: unknown here). */
  readonly cpu: () => number | undefined;
  /** A monotonic wall clock, ms. */
  readonly wall: () => number;
}

const threadSources: WorkClockSources = { cpu: () => threadCpuMs(), wall: () => performance.now() };

/**
 * Milliseconds of the calling thread's work (only differences mean anything); the wall clock
 * where the thread's CPU time cannot be read. Call it on the thread whose work it measures.
 */
export function workClock(sources: WorkClockSources = threadSources): () => number {
  let readAtWall = -Infinity;
  let readCpu = 0;
  let unreadable = false;
  let latest = -Infinity;
  return () => {
    const wall = sources.wall();
    if (unreadable) return wall;
    if (wall - readAtWall >= REREAD_MS) {
      const cpu = sources.cpu();
      if (cpu === undefined) {
        unreadable = true;
        return wall;
      }
      readAtWall = wall;
      readCpu = cpu;
    }
    latest = Math.max(latest, readCpu + (wall - readAtWall));
    return latest;
  };
}
