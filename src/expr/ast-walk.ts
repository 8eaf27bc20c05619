/**
 * A pre-order walk over a cel-js AST (`{op, args}` nodes, args nested in arrays), visiting each
 * node once even where the library shares subtrees. `isNode` says which objects are nodes.
 */
export function walkAst<N extends { args: unknown }>(
  root: unknown,
  isNode: (v: unknown) => v is N,
  visit: (node: N) => void,
): void {
  const seen = new Set<unknown>();
  const go = (v: unknown): void => {
    if (typeof v !== "object" || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      v.forEach(go);
      return;
    }
    if (!isNode(v)) return;
    visit(v);
    go(v.args);
  };
  go(root);
}
