/**
 * Sprig's defaults, dictionaries, lists, conversions and arithmetic (plus Helm's toYaml and
 * required), with Sprig's Go signatures: the integer arithmetic returns int64 via spf13/cast
 * (so `add 1 1.9` is 2), and `default` treats every "empty" value as missing.
 */
import {
  chargeParse,
  FuncError,
  goFunc,
  GoInt,
  int,
  int64,
  isEmpty,
  isMap,
  jsonSyntaxError,
  marshalJson,
  stringSlice,
  strval,
  toFloat64,
  toInt64,
  toYaml,
  unmarshalJson,
  type FuncMap,
  type GoMap,
  type GoValue,
} from "../go/index.js";

/** mergo.Merge without overwrite: fills keys dst lacks (or holds as nil/empty), deep into maps. */
function mergeInto(dst: GoMap, src: GoMap): void {
  for (const [k, sv] of Object.entries(src)) {
    const dv = dst[k];
    if (isMap(dv) && isMap(sv)) mergeInto(dv, sv);
    else if (!Object.hasOwn(dst, k) || dv === null || (isEmpty(dv as GoValue) && !isMap(dv) && !Array.isArray(dv)))
      dst[k] = sv;
  }
}

/** Go's strconv.Itoa-free integer helpers: wrap at 64 bits like int64 arithmetic. */
const wrap = (v: bigint): GoInt => int64(BigInt.asIntN(64, v));

function divide(a: GoValue, b: GoValue, op: (x: bigint, y: bigint) => bigint): GoInt {
  const y = toInt64(b);
  if (y === 0n) throw new FuncError("runtime error: integer divide by zero");
  return wrap(op(toInt64(a), y));
}

export const sprigDataFuncs: FuncMap = {
  default: goFunc(
    ["any"],
    (d: GoValue, ...given: GoValue[]) => (given.length === 0 || isEmpty(given[0]) ? d : given[0]),
    "any",
  ),
  empty: goFunc(["any"], (v: GoValue) => isEmpty(v)),
  coalesce: goFunc([], (...v: GoValue[]) => v.find((e) => !isEmpty(e)) ?? null, "any"),
  ternary: goFunc(["any", "any", "bool"], (t: GoValue, f: GoValue, c: boolean) => (c ? t : f)),
  toYaml: goFunc(["any"], (v: GoValue) => toYaml(v)),
  toJson: goFunc(["any"], (v: GoValue) => marshalJson(v) ?? ""),
  fromJson: goFunc(["string"], (s: string) => {
    chargeParse(s, "fromJson");
    return unmarshalJson(s) ?? null;
  }),
  list: goFunc([], (...v: GoValue[]) => v, "any"),
  dict: goFunc(
    [],
    (...v: GoValue[]) => {
      const d: GoMap = {};
      for (let i = 0; i < v.length; i += 2) d[strval(v[i])] = i + 1 < v.length ? v[i + 1] : "";
      return d;
    },
    "any",
  ),
  get: goFunc(["map", "string"], (d: GoMap, k: string) => (Object.hasOwn(d, k) ? d[k] : "")),
  set: goFunc(["map", "string", "any"], (d: GoMap, k: string, v: GoValue) => {
    d[k] = v;
    return d;
  }),
  hasKey: goFunc(["map", "string"], (d: GoMap, k: string) => Object.hasOwn(d, k)),
  keys: goFunc([], (...ds: GoMap[]) => stringSlice(ds.flatMap((d) => Object.keys(d))), "map"),
  values: goFunc(["map"], (d: GoMap) => Object.values(d)),
  merge: goFunc(
    ["map"],
    (dst: GoMap, ...srcs: GoMap[]) => {
      for (const s of srcs) mergeInto(dst, s);
      return dst;
    },
    "map",
  ),
  mustMerge: goFunc(
    ["map"],
    (dst: GoMap, ...srcs: GoMap[]) => {
      for (const s of srcs) mergeInto(dst, s);
      return dst;
    },
    "map",
  ),
  mustFromJson: goFunc(["string"], (s: string) => {
    chargeParse(s, "mustFromJson");
    const v = unmarshalJson(s);
    if (v === undefined) throw new FuncError(jsonSyntaxError(s));
    return v;
  }),
  add: goFunc([], (...v: GoValue[]) => wrap(v.reduce((a, b) => a + toInt64(b), 0n)), "any"),
  sub: goFunc(["any", "any"], (a: GoValue, b: GoValue) => wrap(toInt64(a) - toInt64(b))),
  mul: goFunc(["any"], (a: GoValue, ...v: GoValue[]) => wrap(v.reduce((x, b) => x * toInt64(b), toInt64(a))), "any"),
  div: goFunc(["any", "any"], (a: GoValue, b: GoValue) => divide(a, b, (x, y) => x / y)),
  mod: goFunc(["any", "any"], (a: GoValue, b: GoValue) => divide(a, b, (x, y) => x % y)),
  max: goFunc(
    ["any"],
    (a: GoValue, ...v: GoValue[]) => int64(v.reduce((m, b) => (toInt64(b) > m ? toInt64(b) : m), toInt64(a))),
    "any",
  ),
  min: goFunc(
    ["any"],
    (a: GoValue, ...v: GoValue[]) => int64(v.reduce((m, b) => (toInt64(b) < m ? toInt64(b) : m), toInt64(a))),
    "any",
  ),
  int: goFunc(["any"], (v: GoValue) => int(toInt64(v))),
  int64: goFunc(["any"], (v: GoValue) => int64(toInt64(v))),
  float64: goFunc(["any"], (v: GoValue) => toFloat64(v)),
  toString: goFunc(["any"], (v: GoValue) => strval(v)),
  required: goFunc(["string", "any"], (warn: string, v: GoValue) => {
    if (v === null || v === "") throw new FuncError(warn);
    return v;
  }),
  join: goFunc(["string", "any"], (sep: string, v: GoValue) => strslice(v).join(sep)),
};

/** Sprig's strslice: lists become their non-nil elements as strings; nil becomes []; a scalar becomes [it]. */
function strslice(v: GoValue): string[] {
  if (Array.isArray(v)) return (v as GoValue[]).filter((e) => e !== null).map(strval);
  if (v === null || v === undefined) return [];
  return [strval(v)];
}
