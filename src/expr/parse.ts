/**
 * The one way src/expr parses CEL: cel-js' parser, preceded by `desugar` (syntax it lacks) and
 * followed by `rewriteAst` (cel-go's meaning where cel-js differs). Every caller that parses —
 * compile, type check, reference extraction, author conditions — goes through here, so an
 * expression means the same thing wherever it is read.
 */
import type { Environment } from "@marcbachmann/cel-js";
import { rewriteAst } from "./ast-rewrites.js";
import { desugar } from "./syntax-desugar.js";

export type ParsedCel = ReturnType<Environment["parse"]>;

/** Parses `source`; throws cel-js' ParseError on bad syntax. */
export function parseCel(env: Environment, source: string): ParsedCel {
  const { text, marks } = desugar(source);
  const parsed = env.parse(text);
  rewriteAst(parsed.ast, marks);
  return parsed;
}
