/**
 * Error classes of the expression layer. Callers branch on these classes and predicates, never on
 * message text: kro decides "data pending" by matching cel-go messages, we decide it once, here.
 */
import { withAuthorsMethodNames } from "./ast-rewrites.js";

export const EXPR_ERROR_CODES = {
  parse: "expr.parse",
  type: "expr.type",
  evaluation: "expr.evaluation",
  dataPending: "expr.data-pending",
  costLimit: "expr.cost-limit",
  conversion: "expr.conversion",
} as const;
export type ExprErrorCode = (typeof EXPR_ERROR_CODES)[keyof typeof EXPR_ERROR_CODES];

/** Character range inside the CEL source (not the surrounding `${…}` template). */
export interface SourceRange {
  readonly start: number;
  readonly end: number;
}

export interface ExprErrorOptions {
  readonly expression: string;
  readonly cause?: unknown;
  readonly range?: SourceRange | undefined;
}

export class ExprError extends Error {
  readonly code: ExprErrorCode;
  /** The CEL source that failed. */
  readonly expression: string;
  readonly range: SourceRange | undefined;

  constructor(code: ExprErrorCode, message: string, options: ExprErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.expression = options.expression;
    this.range = options.range;
  }
}

/** Syntax error: the expression can never be evaluated. */
export class ExprParseError extends ExprError {
  constructor(message: string, options: ExprErrorOptions) {
    super(EXPR_ERROR_CODES.parse, message, options);
  }
}

/** Static type error (wrong operand types, unknown field, unknown function or identifier). */
export class ExprTypeError extends ExprError {
  constructor(message: string, options: ExprErrorOptions) {
    super(EXPR_ERROR_CODES.type, message, options);
  }
}

/** A real runtime failure (no such overload, division by zero, bad conversion…): do not retry. */
export class ExprEvaluationError extends ExprError {
  constructor(message: string, options: ExprErrorOptions, code: ExprErrorCode = EXPR_ERROR_CODES.evaluation) {
    super(code, message, options);
  }
}

/**
 * The expression read a key, field, variable or index that is not there (yet): the observed
 * object has not been populated. kro retries later instead of failing (§4.6).
 */
export class DataPendingError extends ExprEvaluationError {
  constructor(message: string, options: ExprErrorOptions) {
    super(message, options, EXPR_ERROR_CODES.dataPending);
  }
}

/** Evaluation used more than its cost budget (per call or the shared per-reconcile budget). */
export class CostLimitError extends ExprEvaluationError {
  readonly limit: number;
  constructor(message: string, limit: number, options: ExprErrorOptions) {
    super(message, options, EXPR_ERROR_CODES.costLimit);
    this.limit = limit;
  }
}

/** A CEL result that cannot be written into a JSON document (uint, bytes, NaN…). */
export class ResultConversionError extends ExprEvaluationError {
  constructor(message: string, options: ExprErrorOptions) {
    super(message, options, EXPR_ERROR_CODES.conversion);
  }
}

export function isExprError(err: unknown): err is ExprError {
  return err instanceof ExprError;
}

export function isDataPending(err: unknown): err is DataPendingError {
  return err instanceof DataPendingError;
}

export function isCostLimitExceeded(err: unknown): err is CostLimitError {
  return err instanceof CostLimitError;
}

// cel-js error codes that mean "the data is not there yet", the equivalents of cel-go's
// "no such key / no such field / no such attribute / index out of bounds".
const PENDING_CODES = new Set(["no_such_key", "no_such_field", "index_out_of_bounds", "unknown_variable"]);
const PENDING_TEXT = /no such (key|field|attribute)|index out of bounds|unknown variable/i;

interface CelLikeError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly summary?: unknown;
  readonly message?: unknown;
  readonly range?: unknown;
}

function rangeOf(err: CelLikeError): SourceRange | undefined {
  const r = err.range as { start?: unknown; end?: unknown } | undefined;
  return typeof r?.start === "number" && typeof r.end === "number" ? { start: r.start, end: r.end } : undefined;
}

/** Maps whatever the CEL engine (or a library function) threw to one of our classes. */
export function toExprError(err: unknown, expression: string, phase: "parse" | "check" | "evaluate"): ExprError {
  if (err instanceof ExprError) return err;
  const e = (typeof err === "object" && err !== null ? err : {}) as CelLikeError;
  const summary = withAuthorsMethodNames(
    typeof e.summary === "string" ? e.summary : typeof e.message === "string" ? e.message : String(err),
  );
  const options = { expression, cause: err, range: rangeOf(e) };
  if (e.name === "ParseError") return new ExprParseError(summary, options);
  // A JavaScript TypeError thrown by a handler is a runtime failure, not a static type error.
  const celTypeError = e.name === "TypeError" && !(err instanceof globalThis.TypeError);
  if (phase === "check" || celTypeError) return new ExprTypeError(summary, options);
  const code = typeof e.code === "string" ? e.code : "";
  if (PENDING_CODES.has(code) || PENDING_TEXT.test(summary)) return new DataPendingError(summary, options);
  return new ExprEvaluationError(summary, options);
}
