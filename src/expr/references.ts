/**
 * The identifiers an expression reads, for dependency analysis. Macro-bound variables (the `x`
 * of `list.map(x, …)`) are reported too; callers intersect with the names they declared, so a
 * bound name only matters if it shadows a resource id — which kro also treats as a reference.
 */
import type { KroCelEnvironment } from "./environment.js";
import { toExprError } from "./errors.js";
import { parseCel } from "./parse.js";

interface AstNode {
  readonly op: string;
  readonly args: unknown;
}

function isNode(value: unknown): value is AstNode {
  return typeof value === "object" && value !== null && "op" in value && "args" in value;
}

function collect(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, into);
    return;
  }
  if (!isNode(value)) return;
  if (value.op === "id" && typeof value.args === "string") {
    into.add(value.args);
    return;
  }
  collect(value.args, into);
}

/** Root identifiers of an expression; throws an ExprParseError when it does not parse. */
export function referencedIdentifiers(env: KroCelEnvironment, expression: string): Set<string> {
  let ast: unknown;
  try {
    ast = parseCel(env.evaluation, expression).ast;
  } catch (e) {
    throw toExprError(e, expression, "parse");
  }
  const names = new Set<string>();
  collect(ast, names);
  return names;
}
