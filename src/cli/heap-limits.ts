/**
 * V8's heap limits of a long-running command, applied by the process itself so that they hold
 * however node was started (issue #27; docs/performance.md, session 11). A flag the operator
 * gave node on the command line or in NODE_OPTIONS wins over ours.
 *
 * Young generation: the image and the `kro` executable pass `--max-semi-space-size=4`;
 * `node dist/src/cli/main.js controller` typed by hand passes nothing, and V8 then grows its young
 * generation to 2 × 16 MB in the first burst of work and keeps it committed for good — ~30 MB of
 * RSS that holds no live data. The semi-space limit is fixed when V8 creates the heap, before any
 * of our code runs: `--max-semi-space-size` set from here changes nothing. What V8 reads at every
 * growth step is `--semi-space-growth-factor`. So: let new space grow as usual (1 → 2 → 4 MB
 * semi-spaces) and, after the garbage collection that reaches the limit, set the factor to 1 — it
 * never grows again. Factor 1 from the start (1 MB semi-spaces) is worse, not better: more objects
 * survive into the old generation, which then grew to 120 MB at 1,000 instances. The switch runs
 * from a GC observer, so one synchronous burst that outgrows two steps before the observer runs
 * could still overshoot; a controller works in short asynchronous steps, and `heap-limits.test.ts`
 * churns the way it does.
 *
 * Old generation: V8 lets it grow well past what survived the last full collection before it
 * collects again. A controller converging 1,000 instances promotes the garbage of its requests in
 * flight, so at the moment all were Ready the heap held 45–70 MB for 31–37 MB of live data.
 * `--heap-growing-percent=20` bounds that garbage at the price of more full collections (6–12 %
 * more CPU-seconds at 1,000 instances, the same time). V8 reads it at every limit computation.
 */
import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/** The image's `--max-semi-space-size=4` (Dockerfile ENTRYPOINT). */
export const SEMI_SPACE_MB = 4;

export const OLD_GENERATION_GROWTH_PERCENT = 20;

/** A V8 flag given on the command line (or NODE_OPTIONS) is the operator's choice: kept. */
function chosenByOperator(flag: string): boolean {
  const pattern = new RegExp(`^--${flag.replace(/-/g, "[-_]")}\\b`);
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((f) => pattern.test(f));
}

const newSpaceBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;

/** Caps V8's young generation at two `SEMI_SPACE_MB` semi-spaces from now on. Call before the heap grows. */
export function capYoungGeneration(): void {
  if (chosenByOperator("max-semi-space-size")) return;
  const limit = 2 * SEMI_SPACE_MB * 1024 * 1024;
  const observer = new PerformanceObserver(() => {
    if (newSpaceBytes() < limit) return;
    setFlagsFromString("--semi-space-growth-factor=1"); // never 0: V8 crashes
    observer.disconnect();
  });
  observer.observe({ entryTypes: ["gc"] });
}

/** The old generation grows by `OLD_GENERATION_GROWTH_PERCENT` between full collections. */
export function limitOldGenerationGrowth(): void {
  if (chosenByOperator("heap-growing-percent")) return;
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
}

/** Both limits; called by main() for the long-running commands before their code loads. */
export function applyHeapLimits(): void {
  capYoungGeneration();
  limitOldGenerationGrowth();
}
