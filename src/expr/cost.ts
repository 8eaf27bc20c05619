/**
 * Runtime cost limits. cel-js has none, so every AST node evaluation costs 1 and library functions
 * charge for the size of what they touch (like Kubernetes' per-call estimate). A per-call limit
 * protects one evaluation; an optional shared budget caps a whole reconcile.
 */
import { CostLimitError } from "./errors.js";

/** Kubernetes' PerCallLimit for CEL in the apiserver. */
export const DEFAULT_PER_CALL_COST_LIMIT = 1_000_000;

/**
 * A wall-clock deadline for a whole evaluation pass. The clock is passed in (the compile core
 * keeps no time of its own); `at` is a reading of that clock.
 */
export interface EvaluationDeadline {
  readonly now: () => number;
  readonly at: number;
  /** For the error message. */
  readonly budgetMs: number;
}

/** How many charges pass between two clock readings: a node costs ~0.2 µs, a reading ~50 ns. */
const CHARGES_PER_CLOCK_READING = 64;

/** Shared, mutable budget for many evaluations (e.g. one instance reconcile). */
export class CostBudget {
  #remaining: number;
  #untilClock = CHARGES_PER_CLOCK_READING;
  #late = false;
  readonly limit: number;
  readonly deadline: EvaluationDeadline | undefined;
  constructor(limit: number, deadline?: EvaluationDeadline) {
    this.limit = limit;
    this.#remaining = limit;
    this.deadline = deadline;
  }
  get remaining(): number {
    return this.#remaining;
  }
  get used(): number {
    return this.limit - this.#remaining;
  }
  /** Returns false when the budget is exhausted by this charge. */
  consume(units: number): boolean {
    this.#remaining -= units;
    return this.#remaining >= 0;
  }
  /** True once the deadline has passed (the clock is read every few dozen charges). */
  pastDeadline(): boolean {
    if (this.#late || this.deadline === undefined) return this.#late;
    if (--this.#untilClock > 0) return false;
    this.#untilClock = CHARGES_PER_CLOCK_READING;
    this.#late = this.deadline.now() > this.deadline.at;
    return this.#late;
  }
}

export interface CostOptions {
  /** Per-evaluation limit; `Infinity` disables it. Default DEFAULT_PER_CALL_COST_LIMIT. */
  readonly perCallLimit?: number;
  /** Shared budget charged by every evaluation that receives it. */
  readonly budget?: CostBudget;
}

/** Tracks one evaluation; throws CostLimitError the moment a limit is crossed. */
export class CostMeter {
  #used = 0;
  #exceeded: CostLimitError | undefined;
  constructor(
    private readonly expression: string,
    private readonly options: CostOptions,
  ) {}

  get used(): number {
    return this.#used;
  }
  get exceeded(): CostLimitError | undefined {
    return this.#exceeded;
  }

  charge(units: number): void {
    if (this.#exceeded !== undefined) throw this.#exceeded;
    this.#used += units;
    const limit = this.options.perCallLimit ?? DEFAULT_PER_CALL_COST_LIMIT;
    if (this.#used > limit) {
      this.#exceeded = new CostLimitError(`expression exceeded its cost limit of ${limit}`, limit, {
        expression: this.expression,
      });
      throw this.#exceeded;
    }
    const budget = this.options.budget;
    if (budget !== undefined && !budget.consume(units)) {
      this.#exceeded = new CostLimitError(`shared evaluation budget of ${budget.limit} exhausted`, budget.limit, {
        expression: this.expression,
      });
      throw this.#exceeded;
    }
    if (budget?.pastDeadline() === true) {
      const ms = budget.deadline?.budgetMs ?? 0;
      this.#exceeded = new CostLimitError(`evaluation pass exceeded its time limit of ${ms} ms`, budget.limit, {
        expression: this.expression,
      });
      throw this.#exceeded;
    }
  }
}
