/**
 * How many instance reconciles run at once: `workers`, or — with `maxWorkers` above it — a limit
 * that follows the API server (loop/concurrency-limit.ts), steered by the client's answers and
 * rate-limiter waits, the instance queue's backlog and the event loop's load.
 */
import { performance } from "node:perf_hooks";
import type { Clock } from "./clock/index.js";
import type { ControllerMetrics } from "../observability/index.js";
import {
  ConcurrencySlots,
  RequestSignals,
  startAdaptiveConcurrency,
  type ConcurrencyBounds,
  type WorkQueue,
} from "./loop/index.js";

export interface InstanceConcurrency {
  /** Workers to start: the most that can ever run at once. */
  readonly workers: number;
  /** The changing limit below `workers`, when it adapts. */
  readonly slots?: ConcurrencySlots;
  stop(): void;
}

export function instanceConcurrency(
  options: { readonly workers: number; readonly maxWorkers?: number; readonly requestSignals?: RequestSignals },
  queue: WorkQueue,
  clock: Clock,
  metrics: ControllerMetrics | undefined,
): InstanceConcurrency {
  const bounds: ConcurrencyBounds = {
    min: Math.max(1, options.workers),
    max: Math.max(1, options.workers, options.maxWorkers ?? options.workers),
  };
  metrics?.concurrencyLimit.set(bounds.min);
  if (bounds.max === bounds.min) return { workers: bounds.min, stop: () => undefined };
  const slots = new ConcurrencySlots(bounds.min);
  let last = performance.eventLoopUtilization();
  const adaptive = startAdaptiveConcurrency({
    slots,
    waiting: () => queue.length,
    signals: options.requestSignals ?? new RequestSignals(),
    bounds,
    clock,
    eventLoopBusy: () => {
      const now = performance.eventLoopUtilization();
      const share = performance.eventLoopUtilization(now, last).utilization;
      last = now;
      return share;
    },
    onStep: (state, reason) => {
      metrics?.concurrencyLimit.set(state.limit);
      metrics?.concurrencySteps.inc({ reason });
    },
  });
  return {
    workers: bounds.max,
    slots,
    stop() {
      adaptive.stop();
      slots.close();
    },
  };
}
