/**
 * Chart renders sized to the container. Each chart-render worker has its own
 * heap limit, so a runaway render ends as an error on its instance — but only if the container's
 * memory limit is not reached first: the kernel's OOM killer then ends the whole controller with
 * SIGKILL, which the crash-loop guard cannot tell from any other kill. In a 512 MiB container V8
 * gives the main heap ~260 MiB on its own, and 2–4 workers at the default 256 MiB would promise
 * another 0.5–1 GiB. So the workers get what the limit leaves: the limit, minus the main heap's,
 * minus what Node needs beside its heaps, shared by the threads.
 */

/** Node beside its JS heaps: code, native buffers, the young generation, sockets. */
export const NODE_OVERHEAD_MB = 96;
/** Below this a chart cannot be rendered at all: fewer threads first, then a warning. */
export const MIN_RENDER_HEAP_MB = 32;

export interface RenderMemory {
  readonly threads: number;
  readonly heapMb: number;
  /** Why the requested figures were lowered, or why they could not be made to fit. */
  readonly note?: string;
}

/**
 * `limitMb`: the process's memory limit (cgroup), undefined when unlimited; `mainHeapMb`: V8's
 * limit for the main heap; `threads`/`heapMb`: what the pool would use.
 */
export function fitRenderMemory(
  limitMb: number | undefined,
  mainHeapMb: number,
  threads: number,
  heapMb: number,
): RenderMemory {
  if (limitMb === undefined) return { threads, heapMb };
  const spare = limitMb - mainHeapMb - NODE_OVERHEAD_MB;
  if (spare >= threads * heapMb) return { threads, heapMb };
  const why = `the memory limit (${Math.round(limitMb)} MiB) less the main heap's (${Math.round(mainHeapMb)} MiB) and ${NODE_OVERHEAD_MB} MiB for Node leaves ${Math.max(0, Math.round(spare))} MiB`;
  // At least two threads: one render at its time limit must not hold every other one behind it.
  for (let n = threads; n >= 2; n--) {
    const each = Math.floor(spare / n);
    if (each >= MIN_RENDER_HEAP_MB)
      return {
        threads: n,
        heapMb: Math.min(heapMb, each),
        note: `chart renders: ${n} threads of ${Math.min(heapMb, each)} MiB, as ${why}`,
      };
  }
  return {
    threads: 2,
    heapMb: MIN_RENDER_HEAP_MB,
    note: `chart renders cannot fit: ${why} for 2 threads of ${MIN_RENDER_HEAP_MB} MiB; a runaway render may reach the container's limit first (raise it, or lower the main heap with --max-old-space-size)`,
  };
}
