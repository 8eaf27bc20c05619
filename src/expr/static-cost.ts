/**
 * Static cost estimate: flags comprehensions whose range has no size bound. A range is bounded
 * when it is a literal, `lists.range(<literal>)`, or a field of a declared variable whose schema
 * sets maxItems/maxProperties (the same idea as Kubernetes' CRD validation cost estimator).
 */
import { warning, type Issue } from "../diag/index.js";
import type { OpenApiSchema } from "./openapi-schema.js";

interface Node {
  readonly op: string;
  readonly args: unknown;
}

const COMPREHENSIONS = new Set([
  "all",
  "exists",
  "exists_one",
  "existsOne",
  "map",
  "filter",
  "transformList",
  "transformMap",
  "transformMapEntry",
  "sortBy",
]);

const isNode = (v: unknown): v is Node =>
  typeof v === "object" && v !== null && typeof (v as Node).op === "string" && "args" in v;

export const UNBOUNDED_COST_CODE = "expr.cost-unbounded";

/** Walks the AST and returns one warning per comprehension over an unbounded range. */
export function estimateCost(
  ast: unknown,
  source: string,
  variables: Readonly<Record<string, OpenApiSchema>>,
  iterVars: ReadonlySet<string> = new Set(),
): Issue[] {
  const issues: Issue[] = [];
  const visit = (v: unknown, scope: ReadonlySet<string>): void => {
    if (Array.isArray(v)) {
      v.forEach((x) => {
        visit(x, scope);
      });
      return;
    }
    if (!isNode(v)) return;
    if (v.op === "rcall" && Array.isArray(v.args)) {
      const [name, receiver, args] = v.args as [string, unknown, unknown[]];
      if (COMPREHENSIONS.has(name) && !bounded(receiver, variables, scope)) {
        issues.push(
          warning(
            UNBOUNDED_COST_CODE,
            [],
            `expression ${JSON.stringify(source)}: cost cannot be bounded: ${name}() iterates over a list or map without maxItems/maxProperties`,
          ),
        );
      }
      const names = new Set(scope);
      if (COMPREHENSIONS.has(name))
        for (const a of args.slice(0, -1))
          if (isNode(a) && a.op === "id" && typeof a.args === "string") names.add(a.args);
      visit(receiver, scope);
      visit(args, names);
      return;
    }
    if (typeof v.args === "object" && v.args !== null) visit(Object.values(v.args), scope);
  };
  visit(ast, iterVars);
  return issues;
}

function bounded(
  node: unknown,
  variables: Readonly<Record<string, OpenApiSchema>>,
  _scope: ReadonlySet<string>,
): boolean {
  if (!isNode(node)) return false;
  if (node.op === "list" || node.op === "map") return true;
  if (node.op === "call" && Array.isArray(node.args) && node.args[0] === "range") return false;
  if (node.op === "rcall" && Array.isArray(node.args) && node.args[0] === "range") {
    const arg = (node.args[2] as unknown[])[0];
    return isNode(arg) && arg.op === "value";
  }
  const schema = schemaOf(node, variables);
  if (schema === undefined) return false;
  return schema.maxItems !== undefined || schema.maxProperties !== undefined;
}

/** Schema of a `var.a.b` selection chain, if it resolves through declared schemas. */
function schemaOf(node: Node, variables: Readonly<Record<string, OpenApiSchema>>): OpenApiSchema | undefined {
  if (node.op === "id" && typeof node.args === "string") return variables[node.args];
  if ((node.op === "." || node.op === ".?") && Array.isArray(node.args)) {
    const [inner, field] = node.args as [unknown, string];
    if (!isNode(inner)) return undefined;
    const parent = schemaOf(inner, variables);
    const ap = parent?.additionalProperties;
    return parent?.properties?.[field] ?? (typeof ap === "object" ? ap : undefined);
  }
  return undefined;
}
