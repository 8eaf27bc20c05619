/**
 * The work budget of one render: every template function an instance value can reach charges
 * the render's step budget in proportion to the work and memory it causes, *before* it does the
 * work where the size is known up front (a list of `until n`, `repeat`, a bcrypt hash, an RSA
 * prime), and by the size of what it returned otherwise (the executor charges every result).
 * One unit is about one executor step (~0.15 µs on an idle core); the costs below were measured
 * against steps in the same run (docs/design/template-engine.md, "Budgets").
 *
 * The meter is ambient: the executor installs the running render's budget for the duration of
 * the (synchronous) execution and restores the previous one afterwards, so a function charges
 * without every Sprig signature carrying a budget. Outside a render (a function called directly)
 * each charge is only checked against the default limit on its own.
 */
import { FuncError } from "./functions.js";

/** A wall-clock limit the caller lends (the runtime keeps no time of its own). */
export interface RenderDeadline {
  readonly now: () => number;
  /** The instant (in `now`'s units, ms) the render must stop by. */
  readonly at: number;
  /** How the limit is named in the error: "2000 ms". */
  readonly budgetMs: number;
}

export interface WorkMeter {
  /** Shared with the executor's step counter: include, tpl and every file of a chart add to it. */
  readonly budget: { steps: number };
  readonly maxSteps: number;
  readonly deadline?: RenderDeadline | undefined;
}

/** Unit costs, in executor steps. */
export const WORK_COSTS = {
  /** One element of a list or one key of a map a function builds (~50 bytes of heap). */
  element: 4,
  /** Characters of a string a function builds, per unit (UTF-16: 2 bytes each). */
  charsPerUnit: 2,
  /** One bcrypt hash at cost 10 (Sprig's `bcrypt`, `htpasswd`): ~0.35 s of CPU. */
  bcrypt: 500_000,
  /** One `derivePassword` (scrypt N=32768, r=8, p=2: 32 MiB, ~0.6 s). */
  derivePassword: 800_000,
  /** A fresh RSA prime of 2048 bits (half of an RSA-4096 key) — smaller ones scale by (bits/2048)³. */
  rsaPrime2048: 1_200_000,
  /** An ECDSA or Ed25519 key, a signature. */
  curveKey: 5_000,
  /**
   * One uniform random draw (a character of randAlphaNum & co., a swap of shuffle): a small
   * cipher read and rejection sampling, ~25 µs. Uncharged, `shuffle` of a 1 MB string ran 18 s
   * past a 2 s deadline (found by the template fuzzer).
   */
  randomDraw: 150,
} as const;

/** A render ran out of its work budget or its time: the TemplateError kind is "budget". */
export class WorkBudgetError extends FuncError {}

const DEFAULT_MAX_STEPS = 10_000_000;
let active: WorkMeter | undefined;

/** Runs `fn` with `meter` as the ambient budget (nested executions share or replace it). */
export function withWorkMeter<T>(meter: WorkMeter, fn: () => T): T {
  const previous = active;
  active = meter;
  try {
    return fn();
  } finally {
    active = previous;
  }
}

/** Whether the deadline has passed; the message names the limit. */
export function deadlineMessage(deadline: RenderDeadline | undefined): string | undefined {
  if (deadline === undefined || deadline.now() <= deadline.at) return undefined;
  return `evaluation exceeded its time limit of ${deadline.budgetMs} ms`;
}

/**
 * Charges `units` of work for `what` ("a list of 100000000 elements"); throws WorkBudgetError
 * naming the limit when the render's budget (or its deadline) is exhausted.
 */
export function chargeWork(units: number, what: string | (() => string)): void {
  if (!(units > 0)) return;
  const meter = active;
  if (meter === undefined) {
    if (units > DEFAULT_MAX_STEPS) throw new WorkBudgetError(`${typeof what === "string" ? what : what()} exceeds a render's work budget (${DEFAULT_MAX_STEPS} steps)`);
    return;
  }
  meter.budget.steps += units;
  if (meter.budget.steps > meter.maxSteps) {
    throw new WorkBudgetError(`${typeof what === "string" ? what : what()} exceeds the render's work budget (${meter.maxSteps} steps)`);
  }
  const late = deadlineMessage(meter.deadline);
  if (late !== undefined) throw new WorkBudgetError(late);
}

/** Charges a list (or map) of `n` elements the caller is about to build. */
export function chargeElements(n: number | bigint, what: string): void {
  const count = typeof n === "bigint" ? Number(n) : n;
  chargeWork(count * WORK_COSTS.element, () => `${what} of ${count} elements`);
}

/**
 * Charges parsing `text` (fromYaml, fromJson, fromToml, tpl): the work is linear in the text and
 * the values it yields take several times its size, so one unit per character.
 */
export function chargeParse(text: string, what: string): void {
  chargeWork(text.length, () => `${what} of ${text.length} characters`);
}

/** Charges a string of `length` characters the caller is about to build. */
export function chargeChars(length: number, what: string): void {
  chargeWork(Math.ceil(length / WORK_COSTS.charsPerUnit), () => `${what} of ${length} characters`);
}
