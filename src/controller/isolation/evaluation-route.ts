/**
 * Where an instance's evaluation pass runs. Most passes take well under a millisecond, and a
 * round trip to a worker thread would cost more than the pass; so a pass starts on the main
 * thread with a short slice of its work (CPU time). A pass that runs past its slice is stopped there (the
 * runtime's own deadline, checked between nodes and every few dozen steps) and run again in the
 * evaluation pool with its whole budget, measured in the worker's work — and that instance's
 * passes go to the pool from then on, until one of them is cheap again. So the main thread, which
 * answers /healthz, renews leases and handles watches, is never held longer than a slice (and one
 * step of the runtime), whatever instances exist, and the passes that are expensive wait their
 * namespace's turn in the pool, not in front of everyone else's.
 *
 * Charts (spec.helm) stay on the main thread: their renders already run in the chart pool, and
 * a pass over a chart's rendered documents must answer that pool's port, which lives here.
 */
import { LRUCache } from "lru-cache";
import type { CompiledGraph } from "../../graph/index.js";
import {
  evaluateInstance,
  type InstanceEvaluation,
  type KubeJson,
  type ObservedLookup,
  type RuntimeOptions,
} from "../../runtime/index.js";
import { workClock } from "../clock/index.js";
import type { EvaluationJob, PoolEvaluation } from "./evaluation-pool.js";

/** A slice of the main thread a pass may take before it moves to the pool. */
export const DEFAULT_SLICE_MS = 20;

export interface EvaluationPort {
  evaluate(job: EvaluationJob): Promise<PoolEvaluation>;
}

export interface EvaluationRouteOptions {
  readonly sliceMs?: number;
  /**
   * The main thread's clock, ms; default its work (CPU time, clock/work-clock.ts): a cheap pass
   * descheduled on a busy node is not expensive, and moving it would not free the loop anyway.
   */
  readonly now?: () => number;
  /** A pass ran in the pool (its namespace and work), for the metrics. */
  readonly onPooled?: (flow: string, workMs: number) => void;
}

export interface PassRequest {
  /** The instance key: what is remembered as expensive. */
  readonly key: string;
  /** Whose turn in the pool: the instance's namespace. */
  readonly flow: string;
  readonly graph: CompiledGraph;
  readonly instance: KubeJson;
  readonly lookup: ObservedLookup;
  readonly options: RuntimeOptions;
}

export class EvaluationRoute {
  readonly sliceMs: number;
  private readonly now: () => number;
  private readonly onPooled: ((flow: string, workMs: number) => void) | undefined;
  /** Instance keys whose passes run in the pool. */
  private readonly expensive = new LRUCache<string, true>({ max: 50_000 });
  /** Main-thread time the passes of this turn of the event loop took. */
  private spentThisTurn = 0;
  private turnEnds = false;

  constructor(
    private readonly pool: EvaluationPort,
    options: EvaluationRouteOptions = {},
  ) {
    this.sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
    this.now = options.now ?? workClock();
    this.onPooled = options.onPooled;
  }

  /** Whether the instance's passes run in the pool now. */
  pooled(key: string): boolean {
    return this.expensive.has(key);
  }

  forget(key: string): void {
    this.expensive.delete(key);
  }

  /**
   * Waits for the next turn of the event loop when the passes of this turn already took a slice:
   * many reconciles woken by one promise continue in one microtask run, and their passes, each
   * within its slice, would otherwise hold the loop back to back.
   */
  private async turnFree(): Promise<void> {
    while (this.spentThisTurn >= this.sliceMs) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  private spend(ms: number): void {
    this.spentThisTurn += ms;
    if (this.turnEnds) return;
    this.turnEnds = true;
    // After the poll phase of this turn: the I/O that waited (probes, lease renewals, watches) has run.
    setImmediate(() => {
      this.spentThisTurn = 0;
      this.turnEnds = false;
    });
  }

  async evaluate(request: PassRequest): Promise<InstanceEvaluation> {
    const budgetMs = request.options.passDeadline?.budgetMs;
    // Without a deadline (turned off for debugging), or one within the slice, the pass is what it always was.
    if (budgetMs === undefined || budgetMs <= this.sliceMs || isChart(request.graph))
      return inline(request, request.options);
    if (!this.expensive.has(request.key)) {
      // Checked without awaiting when free: the check and the pass must be one synchronous run.
      if (this.spentThisTurn >= this.sliceMs) await this.turnFree();
      const slice = sliceClock(this.now, this.sliceMs);
      const started = this.now();
      const evaluation = inline(request, { ...request.options, passDeadline: slice.deadline });
      this.spend(this.now() - started);
      if (evaluation.error === undefined || !slice.expired()) return evaluation;
      this.expensive.set(request.key, true);
    }
    const { passDeadline: _main, ...options } = request.options;
    const answer = await this.pool.evaluate({
      flow: request.flow,
      graph: request.graph,
      instance: request.instance,
      lookup: request.lookup,
      options,
      deadlineMs: budgetMs,
    });
    if (!answer.ok) return failed(answer.error);
    this.onPooled?.(request.flow, answer.workMs);
    // Cheap again (its spec changed, or its first pass only compiled cold expressions): back on the main thread.
    if (answer.workMs < this.sliceMs / 2) this.expensive.delete(request.key);
    return answer.evaluation;
  }
}

const isChart = (graph: CompiledGraph): boolean => graph.dialect === "template" && graph.helm !== undefined;

function inline(request: PassRequest, options: RuntimeOptions): InstanceEvaluation {
  return evaluateInstance(request.graph, request.instance, request.lookup, options);
}

/** A deadline of `sliceMs` on `now`, and whether the pass read the clock past it. */
function sliceClock(
  now: () => number,
  sliceMs: number,
): { deadline: NonNullable<RuntimeOptions["passDeadline"]>; expired: () => boolean } {
  let start: number | undefined;
  let expired = false;
  return {
    deadline: {
      budgetMs: sliceMs,
      now: () => {
        const t = now();
        start ??= t;
        if (t - start > sliceMs) expired = true;
        return t;
      },
    },
    expired: () => expired,
  };
}

/** A pass the pool could not finish: an evaluation with only its error, which applies nothing. */
function failed(error: string): InstanceEvaluation {
  return { nodes: [], apply: [], pending: false, error, watches: [], externals: [] };
}
