/**
 * The slice of cel-js' (untyped, JavaScript) macro protocol our macros use. cel-js expands a macro
 * at parse time into an object with `typeCheck` and `evaluate` hooks; these interfaces name just
 * the members we call, so the rest of the module stays type-checked.
 */
export interface MacroNode {
  readonly op: string;
  readonly args: unknown;
}

export interface CelType {
  readonly kind: string;
  readonly name: string;
  readonly valueType?: CelType;
  readonly keyType?: CelType;
}

export interface OverlayContext {
  reuse(parent: unknown): OverlayContext;
  setIterValue(value: unknown, evaluator: MacroEvaluator): OverlayContext;
  forkWithVariable(name: string, type: CelType): OverlayContext;
}

export interface CheckContext {
  forkWithVariable(name: string, type: CelType): OverlayContext;
}

export interface MacroChecker {
  check(node: MacroNode, ctx: unknown): CelType;
  getType(name: string): CelType;
  createError(code: string, message: string, node: MacroNode): Error;
  readonly registry: {
    getListType(t: CelType): CelType;
    getMapType(k: CelType, v: CelType): CelType;
  };
}

export interface MacroEvaluator {
  run(node: MacroNode, ctx: unknown): unknown;
}

export interface MacroCall {
  readonly ast: MacroNode;
  readonly args: readonly MacroNode[];
  readonly receiver: MacroNode;
}

export function identifierOf(node: MacroNode | undefined, what: string): string {
  if (node?.op === "id" && typeof node.args === "string") return node.args;
  throw new Error(`${what}: argument must be a simple identifier`);
}

/** Element types a comprehension over `range` binds: (index|key, value). */
export function iterationTypes(chk: MacroChecker, range: CelType): [CelType, CelType] {
  const dyn = chk.getType("dyn");
  // An unbound type parameter (the element type of `[]` or `{}`) is dyn to the body.
  const bound = (t: CelType | undefined): CelType => (t === undefined || t.kind === "param" ? dyn : t);
  if (range.kind === "list") return [chk.getType("int"), bound(range.valueType)];
  if (range.kind === "map") return [bound(range.keyType), bound(range.valueType)];
  return [dyn, dyn];
}

/** Pairs (index|key, value) of a list or map at runtime. */
export function iterationPairs(range: unknown): [unknown, unknown][] {
  if (Array.isArray(range)) return range.map((v, i) => [BigInt(i), v]);
  if (range instanceof Map) return [...range.entries()];
  if (typeof range === "object" && range !== null) return Object.entries(range);
  throw new Error("comprehension range must be a list or a map");
}
