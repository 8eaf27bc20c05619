/**
 * The young-generation limit of a long-running command, applied by the process itself so that it
 * holds however node was started. The image and the `kro` executable pass `--max-semi-space-size=4`;
 * `node dist/src/cli/main.js controller` typed by hand passes nothing, and V8 then grows its young
 * generation to 2 × 16 MB in the first burst of work and keeps it committed for good — ~30 MB of
 * RSS that holds no live data (docs/performance.md, issue #27).
 *
 * The semi-space limit is fixed when V8 creates the heap, before any of our code runs:
 * `--max-semi-space-size` set from here changes nothing. What V8 reads at every growth step is
 * `--semi-space-growth-factor`. So: let new space grow as usual (1 → 2 → 4 MB semi-spaces) and,
 * after the garbage collection that reaches the limit, set the factor to 1 — it never grows
 * again. Growth from the start at factor 1 (1 MB semi-spaces) is worse, not better: more objects
 * survive into the old generation, which then grew to 120 MB at 1,000 instances.
 *
 * The switch runs from a GC observer, so one synchronous burst that outgrows two steps before the
 * observer runs could still overshoot; a controller works in short asynchronous steps, and
 * `young-generation.test.ts` churns the way it does.
 */
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/** The image's `--max-semi-space-size=4` (Dockerfile ENTRYPOINT). */
export const SEMI_SPACE_MB = 4;

/** A semi-space size chosen on the command line (or NODE_OPTIONS) is the operator's: kept. */
function chosenByOperator(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  return flags.some((f) => /^--max[-_]semi[-_]space[-_]size\b/.test(f));
}

const newSpaceBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;

/** Caps V8's young generation at two `SEMI_SPACE_MB` semi-spaces from now on. Call before the heap grows. */
export function capYoungGeneration(): void {
  if (chosenByOperator()) return;
  const limit = 2 * SEMI_SPACE_MB * 1024 * 1024;
  const observer = new PerformanceObserver(() => {
    if (newSpaceBytes() < limit) return;
    setFlagsFromString("--semi-space-growth-factor=1"); // never 0: V8 crashes
    observer.disconnect();
  });
  observer.observe({ entryTypes: ["gc"] });
}
