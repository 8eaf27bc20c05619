/**
 * The thin loop around the concurrency limit (concurrency-limit.ts): samples, every `sampleMs`,
 * whether every slot runs a key while keys wait; every `windowMs` reads the client's request
 * signals and the event loop's busy share, steps the limit and applies it to the slots.
 */
import type { Clock, Timer } from "../clock/index.js";
import {
  initialConcurrency,
  stepConcurrency,
  type ConcurrencyBounds,
  type ConcurrencyReason,
  type ConcurrencyState,
} from "./concurrency-limit.js";
import type { ConcurrencySlots } from "./concurrency-slots.js";
import type { RequestSignals } from "./request-signals.js";

export interface AdaptiveConcurrencyOptions {
  readonly slots: ConcurrencySlots;
  /** Keys ready to be handed out (the work queue's length). */
  readonly waiting: () => number;
  readonly signals: RequestSignals;
  readonly bounds: ConcurrencyBounds;
  readonly clock: Clock;
  /** The event loop's busy share (0–1) since the last call. */
  readonly eventLoopBusy: () => number;
  readonly windowMs?: number;
  readonly sampleMs?: number;
  /** Called after every window with the new state and why (metrics, logs). */
  readonly onStep?: (state: ConcurrencyState, reason: ConcurrencyReason) => void;
}

export interface AdaptiveConcurrency {
  readonly state: ConcurrencyState;
  stop(): void;
}

export function startAdaptiveConcurrency(options: AdaptiveConcurrencyOptions): AdaptiveConcurrency {
  const windowMs = options.windowMs ?? 1000;
  const sampleMs = options.sampleMs ?? 100;
  const samplesPerWindow = Math.max(1, Math.round(windowMs / sampleMs));
  let state = initialConcurrency(options.bounds);
  options.slots.limit = state.limit;
  let samples = 0;
  let saturatedSamples = 0;
  let timer: Timer | undefined;
  options.eventLoopBusy(); // the first window starts now

  const endWindow = (): void => {
    const counts = options.signals.take();
    const next = stepConcurrency(
      state,
      { ...counts, saturated: saturatedSamples / samples, busy: options.eventLoopBusy() },
      options.bounds,
    );
    state = { limit: next.limit, threshold: next.threshold };
    options.slots.limit = state.limit;
    samples = 0;
    saturatedSamples = 0;
    options.onStep?.(state, next.reason);
  };
  const sample = (): void => {
    samples++;
    if (options.slots.taken >= options.slots.limit && options.waiting() > 0) saturatedSamples++;
    if (samples >= samplesPerWindow) endWindow();
    timer = options.clock.setTimer(sample, sampleMs);
  };
  timer = options.clock.setTimer(sample, sampleMs);
  return {
    get state() {
      return state;
    },
    stop() {
      timer?.cancel();
      timer = undefined;
    },
  };
}
