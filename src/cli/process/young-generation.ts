/**
 * How big V8's young generation may grow, decided from what the process is doing, so an
 * idle controller holds little (docs/performance-archive.md, "Idle memory"). V8 reads
 * `--semi-space-growth-factor` at every growth step, so a GC observer can allow growth (factor 2,
 * V8's default) or hold new space where it is (factor 1) as the work changes; the limit it was
 * started with (`--max-semi-space-size`) is fixed and can only be lowered this way, never raised.
 *
 * - **Capped** at two `capMb` semi-spaces when the operator gave no limit: node's default (2 × 16 MB)
 *   stays committed for good after the first burst of work — ~30 MB of RSS with no live data.
 * - **Held while starting**: loading the modules, filling the caches and compiling the graphs,
 *   nearly everything survives, so V8 grows new space to its limit in the first second and an idle
 *   controller then kept its whole new space committed (2 × 4 MB under the limit of then: RSS at
 *   start 82 MB; 75 MB with 1 MB semi-spaces).
 *   Held until the command says it has started.
 * - **Grown only under sustained allocation**: a controller converging 1,000 instances allocates
 *   ~16 MB/s for minutes, and with 1 MB semi-spaces its requests in flight are promoted (the old
 *   generation grew to 120 MB); a reconcile now and then allocates in bursts of a few hundred
 *   milliseconds. So new space grows only after `BUSY_SECONDS` seconds in a row of at least
 *   `BUSY_BYTES_PER_SECOND` each; V8 itself shrinks it again at a collection when allocation is slow.
 */
import { PerformanceObserver, constants } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

const MB = 1024 * 1024;

/** Allocation that counts as busy, per second (the fan-out convergence: ~16 MB/s). */
export const BUSY_BYTES_PER_SECOND = 4 * MB;

/** Consecutive busy seconds before new space may grow (a start after the ready point or one reconcile: < 1 s). */
export const BUSY_SECONDS = 2;

/** V8's own `--semi-space-growth-factor`: new space doubles at each growth step. */
const GROWING = 2;
/** Never 0: V8 crashes. */
const HELD = 1;

/**
 * Bytes allocated per second, estimated from scavenges: each one follows the filling of one
 * semi-space, so its capacity at that moment is what was allocated since the previous one.
 */
export class AllocationRate {
  private readonly recent: { readonly atMs: number; readonly bytes: number }[] = [];

  record(atMs: number, bytes: number): void {
    this.recent.push({ atMs, bytes });
    while ((this.recent[0]?.atMs ?? Infinity) <= atMs - BUSY_SECONDS * 1000) this.recent.shift();
  }

  /** Forgets what was allocated so far (the start's own allocation is not work). */
  clear(): void {
    this.recent.length = 0;
  }

  /** Whether each of the last `BUSY_SECONDS` one-second windows before `nowMs` allocated at least the busy rate. */
  busy(nowMs: number): boolean {
    for (let w = 0; w < BUSY_SECONDS; w++) {
      const from = nowMs - (w + 1) * 1000;
      const to = nowMs - w * 1000;
      let bytes = 0;
      for (const r of this.recent) if (r.atMs > from && r.atMs <= to) bytes += r.bytes;
      if (bytes < BUSY_BYTES_PER_SECOND) return false;
    }
    return true;
  }
}

/** The growth factor for the moment: grow only once started, while busy, and below the cap. */
export function growthFactor(o: {
  readonly started: boolean;
  readonly busy: boolean;
  readonly newSpaceBytes: number;
  readonly capBytes: number | undefined;
}): 1 | 2 {
  return o.started && o.busy && (o.capBytes === undefined || o.newSpaceBytes < o.capBytes) ? GROWING : HELD;
}

export interface YoungGeneration {
  /** The command has started: new space may grow from now on, under sustained allocation. */
  started(): void;
  /** Stops observing; the factor stays as it was last set. */
  stop(): void;
}

const newSpaceBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;

/**
 * Governs the young generation from now on. `capMb`: the largest semi-space (undefined: the
 * operator's `--max-semi-space-size`, which V8 enforces). `holdUntilStarted`: no growth before
 * `started()` (a caller with no start to speak of passes false).
 */
export function governYoungGeneration(o: {
  readonly capMb: number | undefined;
  readonly holdUntilStarted: boolean;
}): YoungGeneration {
  const capBytes = o.capMb === undefined ? undefined : 2 * o.capMb * MB;
  const rate = new AllocationRate();
  let started = !o.holdUntilStarted;
  let factor: number | undefined;
  const apply = (): void => {
    const next = growthFactor({
      started,
      busy: rate.busy(performance.now()),
      newSpaceBytes: newSpaceBytes(),
      capBytes,
    });
    if (next === factor) return;
    factor = next;
    setFlagsFromString(`--semi-space-growth-factor=${next}`);
  };
  const observer = new PerformanceObserver((list) => {
    const semiSpace = newSpaceBytes() / 2;
    for (const entry of list.getEntries()) {
      const kind = (entry as { readonly detail?: { readonly kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) rate.record(entry.startTime, semiSpace);
    }
    apply();
  });
  observer.observe({ entryTypes: ["gc"] });
  apply();
  return {
    started: () => {
      started = true;
      rate.clear();
      apply();
    },
    stop: () => {
      observer.disconnect();
    },
  };
}
