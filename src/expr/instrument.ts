/**
 * Counts node evaluations for the cost meter. cel-js resolves each node's `evaluate` lazily and
 * replaces it with an own property on first use; the wrapper lets that happen once, keeps the
 * resolved function and reinstalls itself, so every later run of the node is charged too.
 */
type EvaluateFn = (this: unknown, ev: unknown, ast: unknown, ctx: unknown) => unknown;

interface NodeLike {
  op: string;
  args: unknown;
  evaluate: EvaluateFn;
}

function isNode(v: unknown): v is NodeLike {
  return typeof v === "object" && v !== null && typeof (v as { op?: unknown }).op === "string" && typeof (v as { evaluate?: unknown }).evaluate === "function";
}

/** Wraps every node reachable from `root` so that evaluating it calls `tick()` first. */
export function instrumentAst(root: unknown, tick: () => void): void {
  const seen = new Set<unknown>();
  const visit = (v: unknown): void => {
    if (typeof v !== "object" || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) { v.forEach(visit); return; }
    if (isNode(v)) { wrap(v, tick); visit(v.args); return; }
    if (Object.getPrototypeOf(v) === Object.prototype) Object.values(v).forEach(visit);
  };
  visit(root);
}

function wrap(node: NodeLike, tick: () => void): void {
  const lazy = node.evaluate;
  let resolved: EvaluateFn | undefined;
  const wrapper: EvaluateFn = function (this: unknown, ev, ast, ctx) {
    tick();
    if (resolved !== undefined) return resolved.call(this, ev, ast, ctx);
    try {
      return lazy.call(this, ev, ast, ctx);
    } finally {
      // cel-js replaced node.evaluate with the resolved implementation: keep it, re-wrap.
      if (node.evaluate !== wrapper) resolved = node.evaluate;
      node.evaluate = wrapper;
    }
  };
  node.evaluate = wrapper;
}
