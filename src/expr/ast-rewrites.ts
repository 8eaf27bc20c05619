/**
 * Passes over a freshly parsed cel-js AST that give it cel-go's meaning where cel-js differs.
 * All run once per compile; none adds work to an evaluation that does not use the feature.
 *  - restore what `syntax-desugar.ts` rewrote: optional list/map entries, backtick-quoted
 *    field names, raw bytes literals;
 *  - `has(e.f)` for any expression `e` (cel-js insists on an identifier at the root);
 *  - `optional.none()` typed optional<dyn>;
 *  - map literals with repeated or non-key-typed literal keys fail (cel-go: an error at run time;
 *    cel-js keeps the last value);
 *  - `x in [1, 2.0, 3u]` (a list literal with numbers) compares numbers across int, uint and
 *    double, as cel-go does (cel-js: `dyn(2.0) in [1, 2]` is false);
 *  - `duration + timestamp` is a timestamp (cel-js declares the overload without a return type,
 *    so it types it a duration and `d + t == t` fails to check);
 *  - selecting a field of an unbound type parameter (`{}.?k.f`: optional<V>, V unbound) is dyn,
 *    as in cel-go, where cel-js reports "Cannot index type";
 *  - methods cel-js builds in with other semantics are routed to ours: timestamp accessors with
 *    a time zone (fixed offsets `"+11:00"`), lowerAscii / upperAscii / trim (ASCII / Go spaces),
 *    the string methods that count or index (code points, not UTF-16 units);
 *  - `<`, `<=`, `>`, `>=` order strings by code point, as cel-go (cel-js: by UTF-16 unit).
 */
import { Optional } from "@marcbachmann/cel-js";
import { walkAst } from "./ast-walk.js";
import { compareCodePoints } from "./string-order.js";
import { LibraryError } from "./lib-support.js";
import type { CelType, MacroChecker, MacroEvaluator } from "./macro-support.js";
import type { SyntaxMarks } from "./syntax-desugar.js";
import {
  TZ_ACCESSORS,
  ASCII_STRING_METHODS,
  CODE_POINT_STRING_METHODS,
  GET_MILLISECONDS,
  OPTIONAL_NONE_DYN,
} from "./library/index.js";

interface Node {
  op: string;
  args: unknown;
  start: number;
  readonly meta: {
    macro?: { typeCheck: unknown; evaluate: unknown };
    check(chk: MacroChecker, node: Node, ctx: unknown): CelType;
    evaluate(ev: MacroEvaluator, node: Node, ctx: unknown): unknown;
  };
  setMeta(key: string, value: unknown): Node;
}

const isNode = (v: unknown): v is Node =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as Node).op === "string" &&
  "args" in v &&
  typeof (v as Node).setMeta === "function";

const walk = (root: unknown, visit: (node: Node) => void): void => {
  walkAst(root, isNode, visit);
};

/** Applies every rewrite; `marks` come from desugar() of the same source. */
export function rewriteAst(ast: unknown, marks: SyntaxMarks | undefined): void {
  walk(ast, (node) => {
    if (marks !== undefined) restoreSyntax(node, marks);
    switch (node.op) {
      case "call":
        generalizeHas(node);
        break;
      case "rcall":
        routeMethod(node);
        routeOptionalNone(node);
        break;
      case "map":
        rejectBadLiteralKeys(node);
        break;
      case "in":
        compareNumbersInListLiteral(node);
        break;
      case "+":
        typeDurationPlusTimestamp(node);
        break;
      case "<":
      case "<=":
      case ">":
      case ">=":
        orderStringsByCodePoint(node);
        break;
      case ".":
      case ".?":
        selectOnUnboundType(node);
        break;
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
    if (!(v instanceof Optional))
      throw new LibraryError("optional_expected", `an optional ${kind} entry must be an optional value`);
    return v.hasValue() ? { ok: true, value: v.value() } : { ok: false, value: undefined };
  };
  const elementType = (chk: MacroChecker, n: unknown, ctx: unknown, opt: boolean): CelType => {
    const t = chk.check(n as Node, ctx);
    if (!opt || t.kind === "dyn") return t;
    if (t.kind !== "optional")
      throw chk.createError(
        "optional_expected",
        `an optional ${kind} entry must be optional, got '${t.name}'`,
        n as Node,
      );
    return t.valueType ?? chk.getType("dyn");
  };
  const join = (chk: MacroChecker, types: CelType[]): CelType =>
    types.every((t) => t.name === types[0]?.name) && types[0] !== undefined ? types[0] : chk.getType("dyn");
  return {
    op: `optional_${kind}`,
    args: entries,
    checkedType: undefined as CelType | undefined,
    check(chk: MacroChecker, _self: unknown, ctx: unknown): CelType {
      if (kind === "list")
        return chk.registry.getListType(
          join(
            chk,
            entries.map((e, i) => elementType(chk, e, ctx, optional[i] === true)),
          ),
        );
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
          if (!optional[i]) {
            out.push(v);
            return;
          }
          const p = present(v);
          if (p.ok) out.push(p.value);
        });
        return out;
      }
      const out = new Map<unknown, unknown>();
      (entries as [Node, Node][]).forEach(([k, e], i) => {
        const key = ev.run(k, ctx);
        const v = ev.run(e, ctx);
        if (!optional[i]) {
          out.set(key, v);
          return;
        }
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
    while (arg.op === "." || arg.op === ".?") {
      props.push(arg);
      arg = (arg.args as [Node, string])[0];
    }
    chk.check(arg, ctx);
    props.push(arg);
    return chk.getType("bool");
  };
  macro.evaluate = (
    ev: MacroEvaluator & { debugType(v: unknown): FieldReader },
    _m: unknown,
    ctx: unknown,
  ): boolean => {
    let i = props.length - 1;
    let obj = ev.run(props[i] as Node, ctx);
    let optionalChain = false;
    // Whether the last selection read through an optional (`optional.of(m).f` is an optional):
    // then has() asks whether it holds a value. A field whose stored value is an optional is
    // present whatever that optional holds.
    let throughOptional = false;
    while (i-- > 0) {
      const sel = props[i] as Node;
      if (sel.op === ".?") optionalChain = true;
      const field = (sel.args as [Node, string])[1];
      throughOptional = obj instanceof Optional || sel.op === ".?";
      obj = ev.debugType(obj).fieldLazy(obj, field, sel, ev);
      if (obj !== undefined) continue;
      // A missing intermediate field is an error, unless the chain is optional (cel-js' rule).
      if (i > 0 && sel.op === "." && !optionalChain) throw new LibraryError("no_such_key", `No such key: ${field}`);
      return false;
    }
    return throughOptional && obj instanceof Optional ? obj.hasValue() : obj !== undefined;
  };
}

interface FieldReader {
  fieldLazy(obj: unknown, key: string, node: Node, ev: unknown): unknown;
}

/** `optional.none()` as optional<dyn>: cel-js' optional<T> leaves T unbound, and selecting on it
 * (`optional.none().?f`) is then a type error where cel-go answers optional.none(). */
function routeOptionalNone(node: Node): void {
  const args = node.args as [string, Node | undefined, unknown[]];
  if (args[0] === "none" && args[1]?.op === "id" && args[1].args === "optional" && args[2].length === 0)
    args[0] = OPTIONAL_NONE_DYN;
}

/** Methods cel-js builds in with other semantics, by `name/arity`, and the names of ours. */
const ROUTED_METHODS: ReadonlyMap<string, string> = new Map([
  ...[...TZ_ACCESSORS].map(([name, routed]) => [`${name}/1`, routed] as const),
  ...ASCII_STRING_METHODS,
  ...CODE_POINT_STRING_METHODS,
  ["getMilliseconds/0", GET_MILLISECONDS],
]);

/** Our names for the routed methods, back to the names the author wrote. */
const AUTHORS_NAMES: readonly (readonly [RegExp, string])[] = [
  ...new Map([...ROUTED_METHODS].map(([key, routed]) => [routed, key.split("/")[0] ?? routed])),
].map(([routed, name]) => [new RegExp(`\\b${routed}\\b`, "g"), name] as const);

/** A message about a routed call, as the author wrote the call (`string.kroSubstring` → `string.substring`). */
export function withAuthorsMethodNames(message: string): string {
  return AUTHORS_NAMES.reduce((m, [routed, name]) => m.replace(routed, name), message);
}

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
    const id =
      typeof v === "bigint" || (typeof v === "object" && v.constructor.name === "UnsignedInt")
        ? `n:${text}`
        : `${typeof v}:${text}`;
    if (seen.has(id)) return `map literal has a repeated key: ${text}`;
    seen.add(id);
  }
  return undefined;
}

function rejectBadLiteralKeys(node: Node): void {
  const problem = badLiteralKey(node.args as [Node, Node][]);
  if (problem === undefined) return;
  const fail = (): never => {
    throw new LibraryError("invalid_argument", problem);
  };
  node
    .setMeta("alternate", { op: "invalid_map", args: [], checkedType: undefined, check: fail, evaluate: fail })
    .setMeta("async", false);
}

/** A CEL number's value for cross-type comparison; undefined for anything else. */
function numberValue(v: unknown): number | bigint | undefined {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (typeof v === "object" && v !== null && v.constructor.name === "UnsignedInt")
    return (v as { valueOf(): bigint }).valueOf();
  return undefined;
}

function compareNumbersInListLiteral(node: Node): void {
  const [left, right] = node.args as [Node, Node];
  if (right.op !== "list" || !(right.args as Node[]).some((e) => e.op === "value" && numberValue(e.args) !== undefined))
    return;
  node
    .setMeta("alternate", {
      op: "numeric_in",
      args: [left, right],
      checkedType: undefined,
      check: (chk: MacroChecker, _self: unknown, ctx: unknown): CelType => node.meta.check(chk, node, ctx),
      evaluate(ev: MacroEvaluator, _self: unknown, ctx: unknown): unknown {
        const x = numberValue(ev.run(left, ctx));
        if (x === undefined) return node.meta.evaluate(ev, node, ctx);
        const list = ev.run(right, ctx) as unknown[];
        // `==` between a bigint and a number compares their mathematical values.
        return list.some((e) => {
          const y = numberValue(e);
          return y !== undefined && x == y;
        });
      },
    })
    .setMeta("async", false);
}

/**
 * Retypes `duration + timestamp` as a timestamp. The alternate exists only until the node is
 * checked: for any other `+` it removes itself, so evaluation runs cel-js' own `+` untouched.
 */
function typeDurationPlusTimestamp(node: Node): void {
  const [, right] = node.args as [Node, Node & { checkedType?: CelType }];
  const alternate = {
    op: "typed_plus",
    args: node.args,
    checkedType: undefined as CelType | undefined,
    check(chk: MacroChecker, _self: unknown, ctx: unknown): CelType {
      const type = node.meta.check(chk, node, ctx);
      if (type.name === "google.protobuf.Duration" && right.checkedType?.name === "google.protobuf.Timestamp")
        return chk.getType("google.protobuf.Timestamp");
      node.setMeta("alternate", undefined);
      return type;
    },
    evaluate: (ev: MacroEvaluator, _self: unknown, ctx: unknown): unknown => node.meta.evaluate(ev, node, ctx),
  };
  node.setMeta("alternate", alternate).setMeta("async", false);
}

/** A binary operator's run-time step, which cel-js' checker installs on the node. */
type BinaryHandle = (left: unknown, right: unknown, ast: unknown, ev: unknown) => unknown;

const RELATIONS: Readonly<Record<string, (order: number) => boolean>> = {
  "<": (order) => order < 0,
  "<=": (order) => order <= 0,
  ">": (order) => order > 0,
  ">=": (order) => order >= 0,
};

/**
 * A relational operator that orders two strings by code point and leaves every other pair of
 * operands to cel-js. cel-js refuses a second `string < string` overload, so the checked node's
 * handle is wrapped instead; the alternate stays, because checking the node again (the checker
 * reinstalls the handle) must wrap the new handle too.
 */
function orderStringsByCodePoint(node: Node & { handle?: BinaryHandle }): void {
  const holds = RELATIONS[node.op];
  if (holds === undefined) return;
  const alternate = {
    op: `ordered_${node.op}`,
    args: node.args,
    checkedType: undefined as CelType | undefined,
    check(chk: MacroChecker, _self: unknown, ctx: unknown): CelType {
      const type = node.meta.check(chk, node, ctx);
      const handle = node.handle;
      if (handle !== undefined)
        node.handle = (a, b, ast, ev) =>
          typeof a === "string" && typeof b === "string" ? holds(compareCodePoints(a, b)) : handle(a, b, ast, ev);
      return type;
    },
    evaluate: (ev: MacroEvaluator, _self: unknown, ctx: unknown): unknown => node.meta.evaluate(ev, node, ctx),
  };
  node.setMeta("alternate", alternate).setMeta("async", false);
}

/**
 * Selections, checked as cel-js checks them, with two corrections:
 *  - `{}.?key.field`: cel-js types `{}.?key` as optional<V> with V unbound and refuses to select
 *    on V; cel-go answers dyn (optional dyn through an optional);
 *  - a selection through an optional holding a value that has no fields (null, a number, a
 *    string, a list) is an error in cel-go; cel-js answers optional.none().
 * For any other selection the alternate removes itself once checked, so evaluation is cel-js'
 * own select, untouched.
 */
function selectOnUnboundType(node: Node): void {
  const [left, field] = node.args as [Node & { checkedType?: CelType }, string];
  const alternate = {
    op: `checked_${node.op}`,
    args: node.args,
    checkedType: undefined as CelType | undefined,
    check(chk: MacroChecker, _self: unknown, ctx: unknown): CelType {
      let type: CelType;
      try {
        type = node.meta.check(chk, node, ctx);
      } catch (e) {
        const lt = left.checkedType;
        const unbound = lt?.kind === "param" || (lt?.kind === "optional" && lt.valueType?.kind === "param");
        if (!unbound || (e as { code?: unknown }).code !== "cannot_index_type") throw e;
        const dyn = chk.getType("dyn");
        return lt.kind === "optional" || node.op === ".?"
          ? (chk.registry as unknown as { getOptionalType(t: CelType): CelType }).getOptionalType(dyn)
          : dyn;
      }
      if (left.checkedType?.kind !== "optional") node.setMeta("alternate", undefined);
      return type;
    },
    evaluate(
      ev: MacroEvaluator & { optionalType: { field(v: unknown, key: string, node: Node, ev: unknown): unknown } },
      _self: unknown,
      ctx: unknown,
    ): unknown {
      if (left.checkedType?.kind !== "optional") return node.meta.evaluate(ev, node, ctx);
      const receiver = ev.run(left, ctx);
      if (receiver instanceof Optional && receiver.hasValue() && !hasFields(receiver.value())) {
        throw new LibraryError("no_such_key", `No such key: ${field} (the optional holds a value without fields)`);
      }
      return ev.optionalType.field(receiver, field, node, ev);
    },
  };
  node.setMeta("alternate", alternate).setMeta("async", false);
}

/** Maps and structs have fields; null, scalars, bytes and lists do not. */
function hasFields(v: unknown): boolean {
  return (
    typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Optional)
  );
}
