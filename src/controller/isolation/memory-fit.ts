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
    const heaps = shares(spare, { threads: n, heapMb: render.heapMb }, evaluation);
    if (Math.min(heaps.render, heaps.evaluation) >= MIN_THREAD_HEAP_MB)
      return {
        render: { threads: n, heapMb: heaps.render },
        evaluation: { threads: evaluation.threads, heapMb: heaps.evaluation },
        note: `worker threads: chart renders ${n} × ${heaps.render} MiB, evaluations ${evaluation.threads} × ${heaps.evaluation} MiB, as ${why}`,
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
 * asked for: the pool asking for less is served first, and what it leaves goes to the other. Pure.
 */
function shares(spare: number, render: PoolMemory, evaluation: PoolMemory): { render: number; evaluation: number } {
  const fill = (first: PoolMemory, second: PoolMemory): [number, number] => {
    const heap = Math.min(first.heapMb, Math.floor(spare / (first.threads + second.threads)));
    return [heap, Math.min(second.heapMb, Math.floor((spare - heap * first.threads) / second.threads))];
  };
  if (evaluation.heapMb < render.heapMb) {
    const [evaluationHeap, renderHeap] = fill(evaluation, render);
    return { render: renderHeap, evaluation: evaluationHeap };
  }
  const [renderHeap, evaluationHeap] = fill(render, evaluation);
  return { render: renderHeap, evaluation: evaluationHeap };
}
