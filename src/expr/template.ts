/**
 * A string field with expressions, compiled: standalone (`"${e}"` → any JSON type) or a template
 * (`"a-${e}-b"` → string concatenation; every fragment must be a string, as kro compiles templates
 * to `"a-" + (e) + "-b"`). Errors name the original template text.
 */
import type { CostOptions } from "./cost.js";
import { compileExpression, type CompiledExpression, type EvaluatedJson } from "./compile.js";
import type { KroCelEnvironment } from "./environment.js";
import { ExprEvaluationError } from "./errors.js";
import type { Segment } from "./extract.js";
import type { CheckOptions, CheckResult, TypedScope } from "./check.js";
import { error, type Issue } from "../diag/index.js";

type Part = { readonly literal: string } | { readonly expression: CompiledExpression };

export interface CompiledField {
  readonly text: string;
  readonly standalone: boolean;
  readonly expressions: readonly CompiledExpression[];
  evaluate(variables: Readonly<Record<string, unknown>>, cost?: CostOptions): EvaluatedJson;
  /** Type-checks every fragment; templates require strings, standalone uses `options.expected`. */
  check(scope: TypedScope, options?: CheckOptions): CheckResult;
}

export function compileField(env: KroCelEnvironment, text: string, segments: readonly Segment[]): CompiledField {
  const parts: Part[] = segments.map((s) =>
    s.kind === "literal" ? { literal: s.text } : { expression: compileExpression(env, s.source) },
  );
  const expressions = parts.flatMap((p) => ("expression" in p ? [p.expression] : []));
  const first = expressions[0];
  const standalone = parts.length === 1 && first !== undefined;
  return {
    text,
    standalone,
    expressions,
    evaluate(variables, cost) {
      if (standalone) return first.evaluateJson(variables, cost);
      let out = "";
      for (const p of parts) {
        if ("literal" in p) {
          out += p.literal;
          continue;
        }
        const v = p.expression.evaluate(variables, cost);
        if (typeof v !== "string") {
          throw new ExprEvaluationError(
            `no such overload: string + ${typeof v === "bigint" ? "int" : typeof v} in template ${JSON.stringify(text)}`,
            { expression: p.expression.source },
          );
        }
        out += v;
      }
      return { omitted: false, value: out };
    },
    check(scope, options = {}) {
      if (standalone) return scope.check(first.source, options);
      const issues: Issue[] = [];
      for (const e of expressions) {
        const r = scope.check(e.source, { ...options, expected: { type: "string" } });
        issues.push(
          ...r.issues.map((i) =>
            i.code === "expr.type-mismatch"
              ? error(
                  i.code,
                  i.path,
                  `template ${JSON.stringify(text)}: every expression must return a string: ${i.message}`,
                )
              : i,
          ),
        );
      }
      return { type: "string", schema: { type: "string" }, issues };
    },
  };
}
