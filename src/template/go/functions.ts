/**
 * The shape of a template function as the executor sees it: Go's parameter types (which decide
 * how arguments are converted and which errors appear), variadic tail, and the implementation.
 * A Go function returning (T, error) throws FuncError; the executor reports
 * `error calling NAME: MSG`, as Go does.
 */
export type ParamType = "any" | "value" | "string" | "int" | "int64" | "float64" | "bool" | "map" | "slice" | "time";

export interface GoFunction {
  readonly params: readonly ParamType[];
  /** Element type of a trailing `...T` parameter. */
  readonly variadic?: ParamType;
  // Arguments arrive already converted to the declared parameter types.
  readonly fn: (...args: never[]) => unknown;
  /** Go's and/or (short-circuit) and call, which the executor implements itself. */
  readonly special?: "and" | "or" | "call";
}

export type FuncMap = Readonly<Record<string, GoFunction>>;

/**
 * A template function's error. `origin` is where a nested execution failed (include's template),
 * so the TemplateError can point at the root cause while its message stays Go's outer one.
 */
export class FuncError extends Error {
  constructor(message: string, readonly origin?: { readonly file?: string | undefined; readonly line: number; readonly column: number }) {
    super(message);
  }
}

/** Go's spelling of a parameter type in error messages. */
export function paramTypeName(t: ParamType): string {
  switch (t) {
    case "any": return "interface {}";
    case "value": return "reflect.Value";
    case "map": return "map[string]interface {}";
    case "slice": return "[]interface {}";
    case "time": return "time.Time";
    default: return t;
  }
}

/** Declares a function; `fn` receives arguments typed per `params`/`variadic`. */
export function goFunc(params: readonly ParamType[], fn: (...args: never[]) => unknown, variadic?: ParamType): GoFunction {
  return variadic === undefined ? { params, fn } : { params, variadic, fn };
}
