/**
 * Passes over a freshly parsed cel-js AST that give it cel-go's meaning where cel-js differs.
 * All run once per compile; none adds work to an evaluation that does not use the feature.
 *  - restore what `syntax-desugar.ts` rewrote: optional list/map entries, backtick-quoted
 *    field names, raw bytes literals;
 *  - `has(e.f)` for any expression `e` (cel-js insists on an identifier at the root);
 *  - `optional.none()` typed optional<dyn>;
 *  - map literals with repeated or non-key-typed literal keys fail (cel-go: an error at run time;
 *    cel-js keeps the last value);
 *  - methods cel-js builds in with other semantics are routed to ours: timestamp accessors with
 *    a time zone (fixed offsets `"+11:00"`), lowerAscii / upperAscii / trim (ASCII / Go spaces).
 */
import { Optional } from "@marcbachmann/cel-js";
import { LibraryError } from "./lib-support.js";
import type { CelType, MacroChecker, MacroEvaluator } from "./macro-support.js";
import type { SyntaxMarks } from "./syntax-desugar.js";
import { TZ_ACCESSORS } from "./lib-timezones.js";
import { ASCII_STRING_METHODS } from "./lib-strings.js";
import { OPTIONAL_NONE_DYN } from "./lib-optionals.js";

interface Node {
  op: string;
  args: unknown;
  start: number;
  readonly meta: { macro?: { typeCheck: unknown; evaluate: unknown } };
  setMeta(key: string, value: unknown): Node;
}

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && typeof (v as Node).op === "string" && "args" in v && typeof (v as Node).setMeta === "function";

function walk(root: unknown, visit: (node: Node) => void): void {
  const seen = new Set<unknown>();
  const go = (v: unknown): void => {
    if (typeof v !== "object" || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) { v.forEach(go); return; }
    if (!isNode(v)) return;
    visit(v);
    go(v.args);
  };
  go(root);
}

/** Applies every rewrite; `marks` come from desugar() of the same source. */
export function rewriteAst(ast: unknown, marks: SyntaxMarks | undefined): void {
  walk(ast, (node) => {
    if (marks !== undefined) restoreSyntax(node, marks);
    switch (node.op) {
      case "call": generalizeHas(node); break;
      case "rcall": routeMethod(node); routeOptionalNone(node); break;
      case "map": rejectBadLiteralKeys(node); break;
    }
  });
}

function restoreSyntax(node: Node, marks: SyntaxMarks): void {
  if ((node.op === "." || node.op === ".?") && Array.isArray(node.args)) {
    const real = marks.quotedFields.get(node.args[1] as string);
    if (real !== undefined) node.args[1] = real;
  } else if (node.op === "value" && typeof node.args === "string" && marks.rawBytes.has(node.start)) {
    node.args = new TextEncoder().encode(node.args);
  } else if (node.op === "list" || node.op === "map") {
    const isMarked = (n: unknown): n is Node => isNode(n) && n.op === "-_" && marks.optionalEntries.has(n.start);
    const entries = node.args as unknown[];
    const optional = entries.map((e) => isMarked(node.op === "list" ? e : (e as unknown[])[0]));
    if (!optional.includes(true)) return;
    // Unwrap the `-` that stood for `?`; the alternate node below treats those entries as optional.
    entries.forEach((e, i) => {
      if (!optional[i]) return;
      if (node.op === "list") entries[i] = (e as Node).args;
      else (e as unknown[])[0] = ((e as unknown[])[0] as Node).args;
    });
    node.setMeta("alternate", optionalEntriesNode(node.op, entries, optional)).setMeta("async", false);
  }
}

/** The list/map literal with optional entries: an absent optional leaves its entry out. */
function optionalEntriesNode(kind: string, entries: unknown[], optional: boolean[]) {
  const present = (v: unknown): { ok: boolean; value: unknown } => {
    if (!(v instanceof Optional)) throw new LibraryError("optional_expected", `an optional ${kind} entry must be an optional value`);
    return v.hasValue() ? { ok: true, value: v.value() } : { ok: false, value: undefined };
  };
  const elementType = (chk: MacroChecker, n: unknown, ctx: unknown, opt: boolean): CelType => {
    const t = chk.check(n as Node, ctx);
    if (!opt || t.kind === "dyn") return t;
    if (t.kind !== "optional") throw chk.createError("optional_expected", `an optional ${kind} entry must be optional, got '${t.name}'`, n as Node);
    return t.valueType ?? chk.getType("dyn");
  };
  const join = (chk: MacroChecker, types: CelType[]): CelType => (types.every((t) => t.name === types[0]?.name) && types[0] !== undefined ? types[0] : chk.getType("dyn"));
  return {
    op: `optional_${kind}`,
    args: entries,
    checkedType: undefined as CelType | undefined,
    check(chk: MacroChecker, _self: unknown, ctx: unknown): CelType {
      if (kind === "list") return chk.registry.getListType(join(chk, entries.map((e, i) => elementType(chk, e, ctx, optional[i] === true))));
      const pairs = entries as [Node, Node][];
      const keys = pairs.map(([k]) => chk.check(k, ctx));
      const values = pairs.map(([, v], i) => elementType(chk, v, ctx, optional[i] === true));
      return chk.registry.getMapType(join(chk, keys), join(chk, values));
    },
    evaluate(ev: MacroEvaluator, _self: unknown, ctx: unknown): unknown {
      if (kind === "list") {
        const out: unknown[] = [];
        entries.forEach((e, i) => {
          const v = ev.run(e as Node, ctx);
          if (!optional[i]) { out.push(v); return; }
          const p = present(v);
          if (p.ok) out.push(p.value);
        });
        return out;
      }
      const out = new Map<unknown, unknown>();
      (entries as [Node, Node][]).forEach(([k, e], i) => {
        const key = ev.run(k, ctx);
        const v = ev.run(e, ctx);
        if (!optional[i]) { out.set(key, v); return; }
        const p = present(v);
        if (p.ok) out.set(key, p.value);
      });
      return [...out.keys()].every((k) => typeof k === "string") ? Object.fromEntries(out) : out;
    },
  };
}

/**
 * cel-js' has() walks `.` selections down to an identifier; cel-go allows any operand, and a
 * selection that lands on an optional (`has(optional.of(m).f)`) tests whether it holds a value.
 */
function generalizeHas(node: Node): void {
  const macro = node.meta.macro;
  if (!Array.isArray(node.args) || node.args[0] !== "has" || macro === undefined) return;
  let props: Node[] = [];
  macro.typeCheck = (chk: MacroChecker, _m: unknown, ctx: unknown): CelType => {
    let arg = (node.args as [string, Node[]])[1][0];
    if (arg?.op !== ".") throw chk.createError("invalid_macro_argument", "has() invalid argument", arg ?? node);
    props = [];
    while (arg.op === "." || arg.op === ".?") { props.push(arg); arg = (arg.args as [Node, string])[0]; }
    chk.check(arg, ctx);
    props.push(arg);
    return chk.getType("bool");
  };
  macro.evaluate = (ev: MacroEvaluator & { debugType(v: unknown): FieldReader }, _m: unknown, ctx: unknown): boolean => {
    let i = props.length - 1;
    let obj = ev.run(props[i] as Node, ctx);
    let optionalChain = false;
    while (i-- > 0) {
      const sel = props[i] as Node;
      if (sel.op === ".?") optionalChain = true;
      const field = (sel.args as [Node, string])[1];
      obj = ev.debugType(obj).fieldLazy(obj, field, sel, ev);
      if (obj !== undefined) continue;
      // A missing intermediate field is an error, unless the chain is optional (cel-js' rule).
      if (i > 0 && sel.op === "." && !optionalChain) throw new LibraryError("no_such_key", `No such key: ${field}`);
      return false;
    }
    return obj instanceof Optional ? obj.hasValue() : obj !== undefined;
  };
}

interface FieldReader {
  fieldLazy(obj: unknown, key: string, node: Node, ev: unknown): unknown;
}

/** `optional.none()` as optional<dyn>: cel-js' optional<T> leaves T unbound, and selecting on it
 * (`optional.none().?f`) is then a type error where cel-go answers optional.none(). */
function routeOptionalNone(node: Node): void {
  const args = node.args as [string, Node | undefined, unknown[]];
  if (args[0] === "none" && args[1]?.op === "id" && args[1].args === "optional" && args[2].length === 0) args[0] = OPTIONAL_NONE_DYN;
}

/** Methods cel-js builds in with other semantics, by `name/arity`, and the names of ours. */
const ROUTED_METHODS: ReadonlyMap<string, string> = new Map([
  ...[...TZ_ACCESSORS].map(([name, routed]) => [`${name}/1`, routed] as const),
  ...ASCII_STRING_METHODS,
]);

function routeMethod(node: Node): void {
  const args = node.args as [string, unknown, unknown[]];
  const routed = ROUTED_METHODS.get(`${args[0]}/${args[2].length}`);
  if (routed !== undefined) args[0] = routed;
}

function literalText(v: { valueOf(): unknown }): string {
  if (v instanceof Uint8Array) return `b:${Buffer.from(v).toString("hex")}`;
  const inner = v.valueOf();
  if (typeof inner === "bigint") return inner.toString();
  const json = JSON.stringify(inner) as string | undefined;
  return json ?? "?";
}

/** A literal key cel-go rejects in a map literal: a repeated key or a double/null key. */
function badLiteralKey(entries: [Node, Node][]): string | undefined {
  const seen = new Set<string>();
  for (const [k] of entries) {
    if (k.op !== "value") continue;
    const v = k.args as string | number | bigint | boolean | null | { valueOf(): unknown };
    if (v === null || typeof v === "number") return `unsupported map key type: ${v === null ? "null" : "double"}`;
    // 1 and 1u are the same key to cel-go; bytes and strings never collide (different prefixes).
    const text = typeof v === "object" ? literalText(v) : String(v);
    const id = typeof v === "bigint" || (typeof v === "object" && v.constructor.name === "UnsignedInt") ? `n:${text}` : `${typeof v}:${text}`;
    if (seen.has(id)) return `map literal has a repeated key: ${text}`;
    seen.add(id);
  }
  return undefined;
}

function rejectBadLiteralKeys(node: Node): void {
  const problem = badLiteralKey(node.args as [Node, Node][]);
  if (problem === undefined) return;
  const fail = (): never => { throw new LibraryError("invalid_argument", problem); };
  node.setMeta("alternate", { op: "invalid_map", args: [], checkedType: undefined, check: fail, evaluate: fail }).setMeta("async", false);
}
