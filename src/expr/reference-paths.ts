/**
 * The field paths an expression reads below each root identifier: `deployment.status.ready`
 * reads ["status", "ready"] of `deployment`. A path stops where the access is no longer a plain
 * field (`x.spec.ports[0]`, `x.spec.map(…)`, `x` passed whole to a function): everything below
 * that point counts as read, so the answer is always a superset of what evaluation touches.
 * The controller uses it to cache only what expressions read (child-field-masks.ts).
 */
import { walkAst } from "./ast-walk.js";
import type { KroCelEnvironment } from "./environment.js";
import { toExprError } from "./errors.js";
import { parseCel } from "./parse.js";

interface AstNode {
  readonly op: string;
  readonly args: unknown;
}

const isNode = (value: unknown): value is AstNode =>
  typeof value === "object" && value !== null && "op" in value && "args" in value;

/** Field selection (`a.b`, `a.?b`) and string-keyed indexing (`a["b"]`, `a[?"b"]`). */
const SELECT_OPS = new Set([".", ".?"]);
const INDEX_OPS = new Set(["[]", "[?]"]);

/** A chain `id.f1["f2"].f3` as its root and steps; undefined when `node` is anything else. */
function chainOf(node: AstNode): { root: string; path: string[] } | undefined {
  const steps: string[] = [];
  let current: AstNode = node;
  for (;;) {
    if (current.op === "id" && typeof current.args === "string") return { root: current.args, path: steps.reverse() };
    const args = current.args;
    if (!Array.isArray(args) || !isNode(args[0])) return undefined;
    const [target, key] = args as [AstNode, unknown];
    if (SELECT_OPS.has(current.op) && typeof key === "string") steps.push(key);
    else if (INDEX_OPS.has(current.op) && isNode(key) && key.op === "value" && typeof key.args === "string")
      steps.push(key.args);
    else return undefined;
    current = target;
  }
}

/**
 * Root identifier → the paths read below it (an empty path: the whole value). Bound variables of
 * macros (`c` in `list.map(c, …)`) appear as roots too; callers keep the names they declared.
 * Throws an ExprParseError when the expression does not parse.
 */
export function referencedPaths(env: KroCelEnvironment, expression: string): Map<string, string[][]> {
  let ast: unknown;
  try {
    ast = parseCel(env.evaluation, expression).ast;
  } catch (e) {
    throw toExprError(e, expression, "parse");
  }
  const reads = new Map<string, string[][]>();
  // A chain's inner nodes are chains too: only the outermost one of each counts.
  const inner = new Set<AstNode>();
  walkAst(ast, isNode, (node) => {
    if (inner.has(node)) return;
    const chain = chainOf(node);
    if (chain === undefined) return;
    for (let n: unknown = node; isNode(n); n = Array.isArray(n.args) ? (n.args as unknown[])[0] : undefined)
      inner.add(n);
    const paths = reads.get(chain.root) ?? [];
    paths.push(chain.path);
    reads.set(chain.root, paths);
  });
  return reads;
}
