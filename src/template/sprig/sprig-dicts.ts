/**
 * Sprig's dictionary, reflection, JSON and arithmetic extras: pluck/pick/omit/unset/dig,
 * mergeOverwrite (mergo with override), deepCopy, typeOf/kindOf/deepEqual, toPrettyJson and
 * toRawJson, all/any, the float arithmetic Sprig does in shopspring/decimal, and conversions.
 */
import {
  decimalOp,
  deepCopy,
  deepEqual,
  FuncError,
  goFunc,
  int,
  int64,
  isEmpty,
  isMap,
  marshalJson,
  parseGoInteger,
  reflectKind,
  strval,
  toFloat64,
  toInt64,
  typeName,
  type FuncMap,
  type GoMap,
  type GoValue,
} from "../go/index.js";

/** mergo.Merge(WithOverride) on map[string]interface{}: maps merge deeply, anything else from src wins (even empty or nil). */
function mergeOverwriteInto(dst: GoMap, src: GoMap): void {
  for (const [k, sv] of Object.entries(src)) {
    const dv = dst[k];
    if (isMap(dv) && isMap(sv)) mergeOverwriteInto(dv, sv);
    else dst[k] = sv;
  }
}

function dig(...args: GoValue[]): GoValue {
  if (args.length < 3) throw new FuncError(`dig needs at least three arguments`);
  const dict = args[args.length - 1];
  const def = args[args.length - 2] ?? null;
  const keys = args.slice(0, -2);
  let cur: GoValue = dict ?? null;
  for (const k of keys) {
    if (typeof k !== "string") throw new FuncError(`interface conversion: interface {} is ${typeName(k)}, not string`);
    if (!isMap(cur))
      throw new FuncError(`interface conversion: interface {} is ${typeName(cur)}, not map[string]interface {}`);
    if (!Object.hasOwn(cur, k)) return def;
    cur = cur[k] as GoValue;
  }
  return cur;
}

/** encoding/json MarshalIndent("", "  ") from the compact form (strings already escaped). */
function indentJson(compact: string): string {
  let out = "";
  let depth = 0;
  let inString = false;
  for (let i = 0; i < compact.length; i++) {
    const c = compact.charAt(i);
    if (inString) {
      out += c;
      if (c === "\\") out += compact.charAt(++i);
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      if (compact.charAt(i + 1) === close) {
        out += c + close;
        i++;
        continue;
      }
      depth++;
      out += `${c}\n${"  ".repeat(depth)}`;
    } else if (c === "}" || c === "]") {
      depth--;
      out += `\n${"  ".repeat(depth)}${c}`;
    } else if (c === ",") out += `,\n${"  ".repeat(depth)}`;
    else if (c === ":") out += ": ";
    else out += c;
  }
  return out;
}

const unescapeHtml = (s: string): string =>
  s
    .replace(/\\u003c/g, "<")
    .replace(/\\u003e/g, ">")
    .replace(/\\u0026/g, "&");

const numericOp =
  (op: "add" | "sub" | "mul" | "div") =>
  (a: GoValue, ...rest: GoValue[]): number =>
    decimalOp(toFloat64(a), rest.map(toFloat64), op);

export const sprigDictFuncs: FuncMap = {
  pluck: goFunc(
    ["string"],
    (k: string, ...ds: GoMap[]) => ds.filter((d) => Object.hasOwn(d, k)).map((d) => d[k]),
    "map",
  ),
  pick: goFunc(
    ["map"],
    (d: GoMap, ...ks: string[]) => Object.fromEntries(ks.filter((k) => Object.hasOwn(d, k)).map((k) => [k, d[k]])),
    "string",
  ),
  omit: goFunc(
    ["map"],
    (d: GoMap, ...ks: string[]) => Object.fromEntries(Object.entries(d).filter(([k]) => !ks.includes(k))),
    "string",
  ),
  unset: goFunc(["map", "string"], (d: GoMap, k: string) => {
    Reflect.deleteProperty(d, k);
    return d;
  }),
  dig: goFunc([], dig, "any"),
  mergeOverwrite: goFunc(
    ["map"],
    (dst: GoMap, ...srcs: GoMap[]) => {
      for (const s of srcs) mergeOverwriteInto(dst, s);
      return dst;
    },
    "map",
  ),
  mustMergeOverwrite: goFunc(
    ["map"],
    (dst: GoMap, ...srcs: GoMap[]) => {
      for (const s of srcs) mergeOverwriteInto(dst, s);
      return dst;
    },
    "map",
  ),
  deepCopy: goFunc(["any"], (v: GoValue) => deepCopy(v)),
  mustDeepCopy: goFunc(["any"], (v: GoValue) => {
    if (v === null) throw new FuncError("reflect: call of reflect.Value.Type on zero Value");
    return deepCopy(v);
  }),
  typeOf: goFunc(["any"], (v: GoValue) => typeName(v)),
  typeIs: goFunc(["string", "any"], (t: string, v: GoValue) => t === typeName(v)),
  typeIsLike: goFunc(["string", "any"], (t: string, v: GoValue) => t === typeName(v) || `*${t}` === typeName(v)),
  kindOf: goFunc(["any"], (v: GoValue) => reflectKind(v)),
  kindIs: goFunc(["string", "any"], (k: string, v: GoValue) => k === reflectKind(v)),
  deepEqual: goFunc(["any", "any"], (a: GoValue, b: GoValue) => deepEqual(a, b)),
  all: goFunc([], (...v: GoValue[]) => v.every((e) => !isEmpty(e)), "any"),
  any: goFunc([], (...v: GoValue[]) => v.some((e) => !isEmpty(e)), "any"),
  toPrettyJson: goFunc(["any"], (v: GoValue) => indentJson(marshalJson(v) ?? "")),
  mustToPrettyJson: goFunc(["any"], (v: GoValue) => {
    const j = marshalJson(v);
    if (j === undefined) throw new FuncError("json: unsupported value");
    return indentJson(j);
  }),
  toRawJson: goFunc(["any"], (v: GoValue) => unescapeHtml(marshalJson(v) ?? "")),
  mustToRawJson: goFunc(["any"], (v: GoValue) => {
    const j = marshalJson(v);
    if (j === undefined) throw new FuncError("json: unsupported value");
    return unescapeHtml(j);
  }),
  mustToJson: goFunc(["any"], (v: GoValue) => {
    const j = marshalJson(v);
    if (j === undefined) throw new FuncError("json: unsupported value");
    return j;
  }),
  add1: goFunc(["any"], (v: GoValue) => int64(toInt64(v) + 1n)),
  add1f: goFunc(["any"], (v: GoValue) => decimalOp(toFloat64(v), [1], "add")),
  addf: goFunc([], (...v: GoValue[]) => decimalOp(0, v.map(toFloat64), "add"), "any"),
  subf: goFunc(["any"], numericOp("sub"), "any"),
  mulf: goFunc(["any"], numericOp("mul"), "any"),
  divf: goFunc(["any"], numericOp("div"), "any"),
  biggest: goFunc(
    ["any"],
    (a: GoValue, ...v: GoValue[]) => int64(v.reduce((m, b) => (toInt64(b) > m ? toInt64(b) : m), toInt64(a))),
    "any",
  ),
  maxf: goFunc(
    ["any"],
    (a: GoValue, ...v: GoValue[]) => v.reduce<number>((m, b) => goMax(m, toFloat64(b)), toFloat64(a)),
    "any",
  ),
  minf: goFunc(
    ["any"],
    (a: GoValue, ...v: GoValue[]) => v.reduce<number>((m, b) => goMin(m, toFloat64(b)), toFloat64(a)),
    "any",
  ),
  floor: goFunc(["any"], (v: GoValue) => Math.floor(toFloat64(v))),
  ceil: goFunc(["any"], (v: GoValue) => Math.ceil(toFloat64(v))),
  round: goFunc(
    ["any", "int"],
    (v: GoValue, p: { value: bigint }, ...opt: number[]) => {
      const on = opt[0] ?? 0.5;
      const pow = 10 ** Number(p.value);
      const digit = pow * toFloat64(v);
      const frac = digit - Math.trunc(digit);
      return (frac >= on ? Math.ceil(digit) : Math.floor(digit)) / pow;
    },
    "float64",
  ),
  atoi: goFunc(["string"], (s: string) => {
    const n = /^[+-]?\d+$/.test(s) ? parseGoInteger(s.replace(/^\+/, ""), false) : undefined;
    return int(n !== undefined && n === BigInt.asIntN(64, n) ? n : 0n);
  }),
  toDecimal: goFunc(["any"], (v: GoValue) => {
    const s = strval(v);
    if (!/^[+-]?[0-7]+$/.test(s)) return int64(0n);
    // BigInt takes no sign on a 0o literal ("-0o1" is a SyntaxError, found by the template fuzz): negate after.
    const magnitude = BigInt(`0o${s.replace(/^[+-]/, "")}`);
    const n = s.startsWith("-") ? -magnitude : magnitude;
    return int64(n === BigInt.asIntN(64, n) ? n : 0n);
  }),
};

const goMax = (a: number, b: number): number => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b));
const goMin = (a: number, b: number): number => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b));
