/**
 * Runtime cost limits. cel-js has none, so every AST node evaluation costs 1 and library functions
 * charge for the size of what they touch (like Kubernetes' per-call estimate). A per-call limit
 * protects one evaluation; an optional shared budget caps a whole reconcile.
 */
import { CostLimitError } from "./errors.js";

/** Kubernetes' PerCallLimit for CEL in the apiserver. */
export const DEFAULT_PER_CALL_COST_LIMIT = 1_000_000;

/** Shared, mutable budget for many evaluations (e.g. one instance reconcile). */
export class CostBudget {
  #remaining: number;
  readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
    this.#remaining = limit;
  }
  get remaining(): number { return this.#remaining; }
  get used(): number { return this.limit - this.#remaining; }
  /** Returns false when the budget is exhausted by this charge. */
  consume(units: number): boolean {
    this.#remaining -= units;
    return this.#remaining >= 0;
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
  constructor(private readonly expression: string, private readonly options: CostOptions) {}

  get used(): number { return this.#used; }
  get exceeded(): CostLimitError | undefined { return this.#exceeded; }

  charge(units: number): void {
    if (this.#exceeded !== undefined) throw this.#exceeded;
    this.#used += units;
    const limit = this.options.perCallLimit ?? DEFAULT_PER_CALL_COST_LIMIT;
    if (this.#used > limit) {
      this.#exceeded = new CostLimitError(`expression exceeded its cost limit of ${limit}`, limit, { expression: this.expression });
      throw this.#exceeded;
    }
    const budget = this.options.budget;
    if (budget !== undefined && !budget.consume(units)) {
      this.#exceeded = new CostLimitError(`shared evaluation budget of ${budget.limit} exhausted`, budget.limit, { expression: this.expression });
      throw this.#exceeded;
    }
  }
}
