/**
 * Counts node evaluations for the cost meter. cel-js resolves each node's `evaluate` lazily and
 * replaces it with an own property on first use; the wrapper lets that happen once, keeps the
 * resolved function and reinstalls itself, so every later run of the node is charged too.
 *
 * Like Kubernetes' CEL cost model, values an operation *builds* are charged by size too: the
 * result of `+` (string, bytes and list concatenation) and of every function or macro call
 * (`join`, `replace`, `format`, `map`, …) costs one unit per ten elements or characters
 * (cel-go's traversal factor 0.1). So doubling a string with `cel.bind` runs out of budget long
 * before it reaches megabytes, whatever the number of nodes.
 *
 * The same wrapper checks that an int, timestamp or duration a node builds is within CEL's range
 * (value-range.ts), so that check costs no second wrapper.
 */
import { RANGED_OPS, assertInRange } from "./value-range.js";

type EvaluateFn = (this: unknown, ev: unknown, ast: unknown, ctx: unknown) => unknown;

interface NodeLike {
  op: string;
  args: unknown;
  evaluate: EvaluateFn;
}

function isNode(v: unknown): v is NodeLike {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as { op?: unknown }).op === "string" &&
    typeof (v as { evaluate?: unknown }).evaluate === "function"
  );
}

/** Operations whose result is a new value worth charging by size. */
const SIZED_OPS = new Set(["+", "call", "rcall"]);

/** cel-go's string/list traversal cost factor. */
const SIZE_COST_FACTOR = 0.1;

/** Size cost of a freshly built value; 0 for scalars and for values we cannot size cheaply. */
export function sizeCost(value: unknown): number {
  if (typeof value === "string" || Array.isArray(value) || value instanceof Uint8Array)
    return Math.ceil(value.length * SIZE_COST_FACTOR);
  if (value instanceof Map) return Math.ceil(value.size * SIZE_COST_FACTOR);
  return 0;
}

/**
 * Wraps every node reachable from `root` so that evaluating it calls `charge(1)` first, and
 * `charge(sizeCost(result))` after a node that builds a value.
 */
export function instrumentAst(root: unknown, charge: (units: number) => void): void {
  const seen = new Set<unknown>();
  const visit = (v: unknown): void => {
    if (typeof v !== "object" || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      v.forEach(visit);
      return;
    }
    if (isNode(v)) {
      wrap(v, charge);
      visit(v.args);
      return;
    }
    if (Object.getPrototypeOf(v) === Object.prototype) Object.values(v).forEach(visit);
  };
  visit(root);
}

function wrap(node: NodeLike, charge: (units: number) => void): void {
  const lazy = node.evaluate;
  const sized = SIZED_OPS.has(node.op);
  const ranged = RANGED_OPS.has(node.op);
  let resolved: EvaluateFn | undefined;
  const wrapper: EvaluateFn = function (this: unknown, ev, ast, ctx) {
    charge(1);
    if (resolved !== undefined) {
      const result = resolved.call(this, ev, ast, ctx);
      if (sized) charge(sizeCost(result));
      if (ranged) assertInRange(result);
      return result;
    }
    try {
      const result = lazy.call(this, ev, ast, ctx);
      if (sized) charge(sizeCost(result));
      if (ranged) assertInRange(result);
      return result;
    } finally {
      // cel-js replaced node.evaluate with the resolved implementation: keep it, re-wrap.
      if (node.evaluate !== wrapper) resolved = node.evaluate;
      node.evaluate = wrapper;
    }
  };
  node.evaluate = wrapper;
}
