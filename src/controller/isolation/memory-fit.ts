/**
 * Worker threads sized to the container. Each chart-render and evaluation thread has its own heap
 * limit, so a runaway render or pass ends as an error on its instance — but only if the
 * container's memory limit is not reached first: the kernel's OOM killer then ends the whole
 * controller with SIGKILL, which the crash-loop guard cannot tell from any other kill. In a 512 MiB
 * container V8 gives the main heap ~260 MiB on its own, and 2–4 render threads at the default
 * 256 MiB plus two evaluation threads at 128 MiB would promise another 0.75–1.25 GiB. So the
 * threads get what the limit leaves: the limit, minus the main heap's, minus what Node needs
 * beside its heaps, shared by every thread of both pools.
 *
 * The conversion webhook's thread is not in this budget: what it holds is bounded by the bytes it
 * accepts (webhook-server.ts), not by what an instance asks it to compute.
 */

/** Node beside its JS heaps: code, native buffers, the young generation, sockets. */
export const NODE_OVERHEAD_MB = 96;
/** Below this a chart cannot be rendered, nor a large graph evaluated: fewer render threads first, then a warning. */
export const MIN_THREAD_HEAP_MB = 32;

export interface PoolMemory {
  readonly threads: number;
  readonly heapMb: number;
}

export interface ThreadMemory {
  readonly render: PoolMemory;
  readonly evaluation: PoolMemory;
  /** Why the requested figures were lowered, or why they could not be made to fit. */
  readonly note?: string;
}

/**
 * `limitMb`: the process's memory limit (cgroup), undefined when unlimited; `mainHeapMb`: V8's
 * limit for the main heap; `render`/`evaluation`: what the pools would use. Render threads may be
 * fewer (never under two: one render at its time limit must not hold every other one behind it);
 * evaluation threads keep their number. Pure.
 */
export function fitThreadMemory(
  limitMb: number | undefined,
  mainHeapMb: number,
  render: PoolMemory,
  evaluation: PoolMemory,
): ThreadMemory {
  const wanted = render.threads * render.heapMb + evaluation.threads * evaluation.heapMb;
  if (limitMb === undefined) return { render, evaluation };
  const spare = limitMb - mainHeapMb - NODE_OVERHEAD_MB;
  if (spare >= wanted) return { render, evaluation };
  const why = `the memory limit (${Math.round(limitMb)} MiB) less the main heap's (${Math.round(mainHeapMb)} MiB) and ${NODE_OVERHEAD_MB} MiB for Node leaves ${Math.max(0, Math.round(spare))} MiB`;
  for (let n = render.threads; n >= 2; n--) {
    const [renderHeap, evaluationHeap] = shares(spare, [{ threads: n, heapMb: render.heapMb }, evaluation]) as [
      number,
      number,
    ];
    if (Math.min(renderHeap, evaluationHeap) >= MIN_THREAD_HEAP_MB)
      return {
        render: { threads: n, heapMb: renderHeap },
        evaluation: { threads: evaluation.threads, heapMb: evaluationHeap },
        note: `worker threads: chart renders ${n} × ${renderHeap} MiB, evaluations ${evaluation.threads} × ${evaluationHeap} MiB, as ${why}`,
      };
  }
  return {
    render: { threads: 2, heapMb: MIN_THREAD_HEAP_MB },
    evaluation: { threads: evaluation.threads, heapMb: MIN_THREAD_HEAP_MB },
    note: `worker threads cannot fit: ${why} for 2 chart-render and ${evaluation.threads} evaluation threads of ${MIN_THREAD_HEAP_MB} MiB; a runaway render or evaluation may reach the container's limit first (raise it, or lower the main heap with --max-old-space-size)`,
  };
}

/**
 * The heap of each pool's threads when `spare` is shared by every thread, none above what its pool
 * asked for: what a pool asking for less leaves is shared by the others (water-filling). Pure.
 */
function shares(spare: number, pools: readonly PoolMemory[]): number[] {
  const heaps = pools.map(() => 0);
  let left = spare;
  let threadsLeft = pools.reduce((sum, pool) => sum + pool.threads, 0);
  const smallestFirst = pools.map((_, i) => i).sort((a, b) => (pools[a]?.heapMb ?? 0) - (pools[b]?.heapMb ?? 0));
  for (const i of smallestFirst) {
    const pool = pools[i];
    if (pool === undefined || pool.threads === 0) continue;
    const heap = Math.min(pool.heapMb, Math.floor(left / threadsLeft));
    heaps[i] = heap;
    left -= heap * pool.threads;
    threadsLeft -= pool.threads;
  }
  return heaps;
}
