/**
 * One full collection when a burst of work is over (docs/performance-archive.md,
 * "The burst's garbage given back"). A controller converging 1,000 instances leaves its heap
 * committed at ~53 MB for ~33 MB of live data: the garbage promoted while requests were in flight,
 * which V8 collects only when the old generation next reaches its limit — and an idle controller
 * allocates too little to get there. V8's own memory reducer would compact it, but it waits for
 * signals a controller renewing its Leases does not give, so RSS stayed at the burst's peak for
 * good.
 *
 * So: once the heap has grown by `GROWTH_BYTES` since the last collection we ran, and no
 * scavenge has run for `QUIET_MS` (allocation has all but stopped: the work is done), one full
 * collection. An idle controller never qualifies (it does not grow), a busy one never does
 * (it scavenges every few hundred milliseconds), so the pause (tens of milliseconds) falls
 * where no request waits on it. `gc` is reached the way `--expose-gc` would give it, enabled at
 * run time (as jest-leak-detector reaches it), so it holds however node was started. The flag
 * puts `gc` in every context created from then on, the chart-render workers' too; none of them
 * runs a tenant's JavaScript (templates and CEL are interpreted), so no tenant can call it.
 */
import { PerformanceObserver, constants } from "node:perf_hooks";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const MB = 1024 * 1024;

/** Growth of the committed heap since our last collection that is worth collecting for. */
export const GROWTH_BYTES = 8 * MB;
/** No scavenge for this long: the burst is over. */
export const QUIET_MS = 2000;
const CHECK_MS = 1000;

/** Whether to collect now: grown enough since the last one, and quiet long enough. */
export function shouldCollect(o: {
  readonly heapBytes: number;
  readonly baselineBytes: number;
  readonly sinceScavengeMs: number;
}): boolean {
  return o.heapBytes - o.baselineBytes >= GROWTH_BYTES && o.sinceScavengeMs >= QUIET_MS;
}

/** V8's full collection, as `--expose-gc` exposes it; undefined where the flag cannot be set. */
function exposedGc(): (() => void) | undefined {
  setFlagsFromString("--expose-gc");
  const gc: unknown = runInNewContext("typeof gc === 'function' ? gc : undefined");
  return typeof gc === "function"
    ? () => {
        (gc as () => void)();
      }
    : undefined;
}

export interface IdleCollection {
  /** Collections run so far (tests, metrics). */
  readonly collections: number;
  stop(): void;
}

export function collectWhenIdle(): IdleCollection {
  const gc = exposedGc();
  let baseline = getHeapStatistics().total_heap_size;
  let lastScavenge = performance.now();
  let collections = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { readonly detail?: { readonly kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) lastScavenge = entry.startTime + entry.duration;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  const timer = setInterval(() => {
    const heapBytes = getHeapStatistics().total_heap_size;
    // The heap shrank by itself (V8 collected): measure growth from there.
    if (heapBytes < baseline) baseline = heapBytes;
    if (
      gc === undefined ||
      !shouldCollect({ heapBytes, baselineBytes: baseline, sinceScavengeMs: performance.now() - lastScavenge })
    )
      return;
    gc();
    collections++;
    baseline = getHeapStatistics().total_heap_size;
  }, CHECK_MS);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    stop: () => {
      clearInterval(timer);
      observer.disconnect();
    },
  };
}
