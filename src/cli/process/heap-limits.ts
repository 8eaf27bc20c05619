/**
 * V8's heap limits of a long-running command, applied by the process itself so that they hold
 * however node was started (docs/performance-archive.md, "Memory however the controller is
 * started"). A flag the operator gave node on the command line or in NODE_OPTIONS wins over ours.
 *
 * Young generation (young-generation.ts): the image and the `kro` executable pass
 * `--max-semi-space-size=2`; `node dist/src/cli/main.js controller` typed by hand passes nothing,
 * and V8 then grows its young generation to 2 × 16 MB in the first burst of work and keeps it
 * committed for good — ~30 MB of RSS that holds no live data. The semi-space limit is fixed when
 * V8 creates the heap, before any of our code runs: `--max-semi-space-size` set from here changes
 * nothing. What V8 reads at every growth step is `--semi-space-growth-factor`, so a GC observer
 * sets it: 1 (hold) while the command starts and whenever allocation is not sustained, 2 (V8's
 * default) under sustained allocation until new space reaches the image's 2 × 2 MB. Factor 1 for
 * good (1 MB semi-spaces) is worse under load, not better: more objects survive into the old
 * generation, which then grew to 120 MB at 1,000 instances. The switch runs from a GC observer,
 * so one synchronous burst that outgrows two steps before the observer runs could still
 * overshoot; a controller works in short asynchronous steps, and `heap-limits.test.ts` churns the
 * way it does.
 *
 * Old generation: V8 lets it grow well past what survived the last full collection before it
 * collects again. A controller converging 1,000 instances promotes the garbage of its requests in
 * flight, so at the moment all were Ready the heap held 45–70 MB for 31–37 MB of live data.
 * `--heap-growing-percent=20` bounds that garbage at the price of more full collections (6–12 %
 * more CPU-seconds at 1,000 instances, the same time). V8 reads it at every limit computation.
 * What the burst leaves behind once it is over is given back by one full collection
 * (idle-collection.ts).
 */
import { setFlagsFromString } from "node:v8";
import { governYoungGeneration, type YoungGeneration } from "./young-generation.js";
import { collectWhenIdle } from "./idle-collection.js";

/**
 * The image's `--max-semi-space-size=2` (Dockerfile ENTRYPOINT). 2 rather than 4:
 * 3.6–4 MB less RSS at 1,000 fan-out instances for ~4 % more CPU-seconds
 * (docs/performance-archive.md).
 */
export const SEMI_SPACE_MB = 2;

export const OLD_GENERATION_GROWTH_PERCENT = 20;

/** A V8 flag given on the command line (or NODE_OPTIONS) is the operator's choice: kept. */
function chosenByOperator(flag: string): boolean {
  const pattern = new RegExp(`^--${flag.replace(/-/g, "[-_]")}\\b`);
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((f) => pattern.test(f));
}

let young: YoungGeneration | undefined;

/** Caps V8's young generation at two `SEMI_SPACE_MB` semi-spaces from now on, with no hold. Call before the heap grows. */
export function capYoungGeneration(): void {
  if (chosenByOperator("max-semi-space-size") || chosenByOperator("semi-space-growth-factor")) return;
  young = governYoungGeneration({ capMb: SEMI_SPACE_MB, holdUntilStarted: false });
}

/** The young-generation policy of a long-running command: held until `youngGenerationMayGrow()`, then grown only when busy, capped. */
function governLongRunning(): void {
  if (chosenByOperator("semi-space-growth-factor")) return;
  young = governYoungGeneration({
    capMb: chosenByOperator("max-semi-space-size") ? undefined : SEMI_SPACE_MB,
    holdUntilStarted: true,
  });
}

/** The command has started (its caches synced, its first work done): new space may grow when work comes. */
export function youngGenerationMayGrow(): void {
  young?.started();
}

/** The old generation grows by `OLD_GENERATION_GROWTH_PERCENT` between full collections. */
export function limitOldGenerationGrowth(): void {
  if (chosenByOperator("heap-growing-percent")) return;
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
}

/** Every limit; called by main() for the long-running commands before their code loads. */
export function applyHeapLimits(): void {
  governLongRunning();
  limitOldGenerationGrowth();
  collectWhenIdle();
}
