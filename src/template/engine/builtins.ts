/**
 * Go's predefined template functions (funcs.go): index, slice, len, not, the comparisons with
 * Go's basic-kind rules, the escapers and the print family. `and`, `or` and `call` are handled
 * by the executor itself (they short-circuit or need the argument nodes), as in Go.
 */
import {
  formatValue,
  FuncError,
  goFunc,
  GoInt,
  GoObject,
  Iface,
  int,
  isMap,
  isStringSlice,
  isTrue,
  sprint,
  sprintf,
  sprintln,
  stringSlice,
  toAny,
  typeName,
  unbox,
  type FuncMap,
  type GoValue,
} from "../go/index.js";

type BasicKind = "invalid" | "bool" | "int" | "uint" | "float" | "string";

function basicKind(v: GoValue): BasicKind {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "float";
  if (typeof v === "string") return "string";
  if (v instanceof GoInt) return v.type === "uint8" ? "uint" : "int";
  return "invalid";
}

const spec = { minus: false, plus: false, sharp: false, space: false, zero: false };

function eq(a1: unknown, ...rest: unknown[]): boolean {
  const arg1 = unbox(a1);
  if (rest.length === 0) throw new FuncError("missing argument for comparison");
  const k1 = basicKind(arg1);
  for (const raw of rest) {
    const arg = unbox(raw);
    const k2 = basicKind(arg);
    let truth = false;
    if (k1 !== k2) {
      if ((k1 === "int" || k1 === "uint") && (k2 === "int" || k2 === "uint"))
        truth = (arg1 as GoInt).value === (arg as GoInt).value;
      else if (arg1 !== undefined && arg !== undefined) {
        throw new FuncError(`incompatible types for comparison: ${typeName(arg1)} and ${typeName(arg)}`);
      }
    } else if (k1 === "int" || k1 === "uint") truth = (arg1 as GoInt).value === (arg as GoInt).value;
    else if (k1 !== "invalid") truth = arg1 === arg;
    else {
      const kindA = arg1 === undefined ? "invalid" : Array.isArray(arg1) ? "slice" : "map";
      const kindB = arg === undefined ? "invalid" : Array.isArray(arg) ? "slice" : "map";
      if (kindA !== kindB && kindA !== "invalid" && kindB !== "invalid") {
        throw new FuncError(
          `non-comparable types ${formatValue(arg1, "s", spec)}: ${typeName(arg1)}, ${typeName(arg)}: ${formatValue(arg, "v", spec)}`,
        );
      }
      if (arg1 === undefined || arg === undefined) truth = arg1 === arg;
      else throw new FuncError(`non-comparable type ${formatValue(arg, "s", spec)}: ${typeName(arg)}`);
    }
    if (truth) return true;
  }
  return false;
}

function lt(a1: unknown, a2: unknown): boolean {
  const arg1 = unbox(a1);
  const arg2 = unbox(a2);
  const k1 = basicKind(arg1);
  const k2 = basicKind(arg2);
  if (k1 === "invalid" || k2 === "invalid") throw new FuncError("invalid type for comparison");
  const ints = (k: BasicKind): boolean => k === "int" || k === "uint";
  if (k1 !== k2 && !(ints(k1) && ints(k2)))
    throw new FuncError(`incompatible types for comparison: ${typeName(arg1)} and ${typeName(arg2)}`);
  if (k1 === "bool") throw new FuncError("invalid type for comparison");
  if (ints(k1)) return (arg1 as GoInt).value < (arg2 as GoInt).value;
  return (arg1 as number | string) < (arg2 as number | string);
}

const le = (a: unknown, b: unknown): boolean => lt(a, b) || eq(a, b);

function indexArg(index: GoValue, cap: number): number {
  if (index instanceof GoInt) {
    const x = index.value;
    if (x < 0n || x > BigInt(cap)) throw new FuncError(`index out of range: ${x}`);
    return Number(x);
  }
  if (index === undefined) throw new FuncError("cannot index slice/array with nil");
  throw new FuncError(`cannot index slice/array with type ${typeName(index)}`);
}

/** A typed map or slice indexes, slices and measures as its underlying value. */
const underlying = (v: unknown): unknown => (v instanceof GoObject && v.spec.kind !== "struct" ? v.underlying : v);

function index(itemRaw: unknown, ...indexes: unknown[]): unknown {
  let item: unknown = underlying(unbox(itemRaw));
  if (item === undefined) throw new FuncError("index of untyped nil");
  for (const raw of indexes) {
    const idx = unbox(raw);
    if (item instanceof Iface || item === null) {
      if (item === null || item.inner === null) throw new FuncError("index of nil pointer");
      item = item.inner;
    }
    if (typeof item === "string" || Array.isArray(item)) {
      const x = indexArg(idx, item.length);
      if (typeof item === "string") {
        const bytes = new TextEncoder().encode(item);
        if (x >= bytes.length) throw new FuncError("reflect: string index out of range");
        item = new GoInt(BigInt(bytes[x] ?? 0), "uint8");
      } else {
        if (x >= item.length) throw new FuncError("reflect: slice index out of range");
        item = isStringSlice(item) ? item[x] : new Iface(item[x] as GoValue);
      }
    } else if (isMap(item)) {
      if (idx === undefined) throw new FuncError("value is nil; should be of type string");
      if (typeof idx !== "string") throw new FuncError(`value has type ${typeName(idx)}; should be string`);
      item = new Iface(Object.hasOwn(item, idx) ? (item[idx] as GoValue) : null);
    } else throw new FuncError(`can't index item of type ${typeName(item)}`);
  }
  return item;
}

function slice(itemRaw: unknown, ...indexes: unknown[]): unknown {
  const item = underlying(unbox(itemRaw)) as GoValue;
  if (item === undefined) throw new FuncError("slice of untyped nil");
  if (indexes.length > 3) throw new FuncError(`too many slice indexes: ${indexes.length}`);
  if (typeof item === "string" && indexes.length === 3) throw new FuncError("cannot 3-index slice a string");
  if (typeof item !== "string" && !Array.isArray(item))
    throw new FuncError(`can't slice item of type ${typeName(item)}`);
  const idx = [0, item.length, item.length];
  indexes.forEach((raw, i) => {
    idx[i] = indexArg(unbox(raw), item.length);
  });
  const [a = 0, b = 0, c = 0] = idx;
  if (a > b) throw new FuncError(`invalid slice index: ${a} > ${b}`);
  if (indexes.length === 3 && b > c) throw new FuncError(`invalid slice index: ${b} > ${c}`);
  if (typeof item === "string") return item.slice(a, b);
  const out = item.slice(a, b);
  return isStringSlice(item) ? stringSlice(out as string[]) : out;
}

function length(raw: unknown): GoInt {
  if (raw instanceof Iface && raw.inner === null) throw new FuncError("len of nil pointer");
  const item = underlying(unbox(raw));
  if (item === undefined) throw new FuncError("reflect: call of reflect.Value.Type on zero Value");
  if (typeof item === "string") return int(new TextEncoder().encode(item).length);
  if (Array.isArray(item)) return int(item.length);
  if (isMap(item)) return int(Object.keys(item).length);
  throw new FuncError(`len of type ${typeName(item)}`);
}

/** template's evalArgs: one string stays as is; otherwise Sprint with nil as "<no value>". */
function evalArgs(args: unknown[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return sprint(args.map((a) => (toAny(a) === null ? "<no value>" : a)));
}

const htmlEscapes: Record<string, string> = {
  "\0": "\uFFFD",
  '"': "&#34;",
  "'": "&#39;",
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
};
export const htmlEscape = (s: string): string => s.replace(/[\0"'&<>]/g, (c) => htmlEscapes[c] ?? c);

const jsEscapes: Record<string, string> = {
  "\\": "\\\\",
  "'": "\\'",
  '"': '\\"',
  "<": "\\u003C",
  ">": "\\u003E",
  "&": "\\u0026",
  "=": "\\u003D",
};
export function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    const esc = jsEscapes[ch];
    if (esc !== undefined) out += esc;
    else if (c < 0x20) out += `\\u00${c.toString(16).toUpperCase().padStart(2, "0")}`;
    else if (c < 0x80) out += ch;
    else if (/^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) out += ch;
    else out += `\\u${c.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return out;
}

/** net/url.QueryEscape. */
export function queryEscape(s: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

export const builtinFuncs: FuncMap = {
  and: { ...goFunc(["value"], () => undefined, "value"), special: "and" },
  or: { ...goFunc(["value"], () => undefined, "value"), special: "or" },
  call: { ...goFunc(["value"], () => undefined, "value"), special: "call" },
  not: goFunc(["value"], (v: unknown) => !isTrue(v)),
  len: goFunc(["value"], length),
  index: goFunc(["value"], index, "value"),
  slice: goFunc(["value"], slice, "value"),
  eq: goFunc(["value"], eq, "value"),
  ne: goFunc(["value", "value"], (a: unknown, b: unknown) => !eq(a, b)),
  lt: goFunc(["value", "value"], lt),
  le: goFunc(["value", "value"], le),
  gt: goFunc(["value", "value"], (a: unknown, b: unknown) => !le(a, b)),
  ge: goFunc(["value", "value"], (a: unknown, b: unknown) => !lt(a, b)),
  html: goFunc([], (...a: unknown[]) => htmlEscape(evalArgs(a)), "any"),
  js: goFunc([], (...a: unknown[]) => jsEscape(evalArgs(a)), "any"),
  urlquery: goFunc([], (...a: unknown[]) => queryEscape(evalArgs(a)), "any"),
  print: goFunc([], (...a: unknown[]) => sprint(a), "any"),
  printf: goFunc(["string"], (f: string, ...a: unknown[]) => sprintf(f, a), "any"),
  println: goFunc([], (...a: unknown[]) => sprintln(a), "any"),
};
