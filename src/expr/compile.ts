/**
 * Compile once, evaluate many: a parsed expression bound to the kro environment, evaluated under
 * a cost meter, with engine errors mapped to our classes (data pending vs real errors, §4.6).
 */
import type { Context } from "@marcbachmann/cel-js";
import { CostMeter, type CostOptions } from "./cost.js";
import type { KroCelEnvironment } from "./environment.js";
import { ResultConversionError, toExprError } from "./errors.js";
import { instrumentAst } from "./instrument.js";
import { routeRegexCalls } from "./regex-calls.js";
import { celToJson, type JsonValue } from "./values.js";
import { parseCel } from "./parse.js";

export interface CompiledExpression {
  readonly source: string;
  /** Evaluates to a CEL value (BigInt ints, Optional, Uint8Array…). Throws ExprError subclasses. */
  evaluate(variables: Readonly<Record<string, unknown>>, cost?: CostOptions): unknown;
  /** Evaluates and converts to JSON; `omitted` when the result is the omit() sentinel. */
  evaluateJson(variables: Readonly<Record<string, unknown>>, cost?: CostOptions): EvaluatedJson;
}

export type EvaluatedJson = { readonly omitted: false; readonly value: JsonValue } | { readonly omitted: true };

/** Parses `source`; throws ExprParseError on bad syntax. */
export function compileExpression(env: KroCelEnvironment, source: string): CompiledExpression {
  let parsed: ((ctx?: Context) => unknown) & { ast: unknown };
  try {
    parsed = parseCel(env.evaluation, source);
  } catch (e) {
    throw toExprError(e, source, "parse");
  }
  routeRegexCalls(parsed.ast);
  let meter: CostMeter | undefined;
  instrumentAst(parsed.ast, (units) => {
    if (units > 0) meter?.charge(units);
  });

  const evaluate = (variables: Readonly<Record<string, unknown>>, cost: CostOptions = {}): unknown => {
    const outer = meter;
    const outerSlot = env.slot.current;
    meter = new CostMeter(source, cost);
    env.slot.current = meter;
    const current = meter;
    try {
      const result = parsed(variables);
      // A cost error swallowed by `||`, `&&` or a quantifier must still fail the evaluation.
      if (current.exceeded !== undefined) throw current.exceeded;
      return result;
    } catch (e) {
      throw toExprError(current.exceeded ?? e, source, "evaluate");
    } finally {
      meter = outer;
      env.slot.current = outerSlot;
    }
  };

  return {
    source,
    evaluate,
    evaluateJson(variables, cost) {
      const value = evaluate(variables, cost);
      try {
        const json = celToJson(value);
        return json.omitted ? { omitted: true } : { omitted: false, value: json.value };
      } catch (e) {
        throw new ResultConversionError(e instanceof Error ? e.message : String(e), { expression: source, cause: e });
      }
    },
  };
}
