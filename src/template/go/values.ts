/**
 * How Go values are represented while a template runs. Data is plain JSON-like values, as
 * `encoding/json` would put them in `map[string]interface{}`:
 *   undefined → an invalid reflect.Value (a missing key; prints "<no value>")
 *   null      → a nil interface{}            string/boolean → string/bool
 *   number    → float64                      GoInt          → int / int64 (literals, len, Sprig)
 *   object    → map[string]interface {}      array          → []interface {} (or a tagged []string)
 *   GoObject  → a Go value with a named type and methods (go-object.ts)
 * `Iface` marks a value whose static type is interface{} (a map element, a range element): Go's
 * error texts and nil handling differ for those, so the executor keeps the distinction.
 */
import { GoObject } from "./go-object.js";

export type IntType = "int" | "int64" | "uint8" | "uint64";

export class GoInt {
  constructor(readonly value: bigint, readonly type: IntType = "int") {}
}

export class Iface {
  constructor(readonly inner: GoValue) {}
}

export type GoMap = Record<string, unknown>;
export type GoValue = undefined | null | string | boolean | number | GoInt | GoMap | unknown[] | GoObject;

const SLICE_TYPE = Symbol("slice type");

/** Marks an array with its Go slice type ("[]int", "[][]interface {}") for %T, typeOf and type errors. */
export function typedSlice<T>(items: T[], type: string): T[] {
  Object.defineProperty(items, SLICE_TYPE, { value: type });
  return items;
}

/** The Go type of a marked array, or undefined for a plain []interface {}. */
export function sliceType(v: unknown): string | undefined {
  if (!Array.isArray(v)) return undefined;
  const t = (v as unknown as Record<symbol, unknown>)[SLICE_TYPE];
  return typeof t === "string" ? t : undefined;
}

/** Marks an array as Go `[]string` (Sprig's keys/splitList) for %T and type errors. */
export function stringSlice(items: string[]): string[] {
  return typedSlice(items, "[]string");
}

export function isStringSlice(v: unknown): boolean {
  return sliceType(v) === "[]string";
}

export const int = (n: number | bigint): GoInt => new GoInt(BigInt.asIntN(64, BigInt(n)), "int");
export const int64 = (n: number | bigint): GoInt => new GoInt(BigInt.asIntN(64, BigInt(n)), "int64");

/** A plain map[string]interface{} (an object literal or JSON object; never a class instance). */
export function isMap(v: unknown): v is GoMap {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** indirectInterface: the concrete value inside an interface (nil interface → invalid). */
export function unbox(v: unknown): GoValue {
  if (v instanceof Iface) return v.inner === null ? undefined : v.inner;
  return v as GoValue;
}

/** The value an `interface{}` parameter receives: nil stays nil, boxes are opened. */
export function toAny(v: unknown): GoValue {
  if (v instanceof Iface) return v.inner;
  return v === undefined ? null : (v as GoValue);
}

/** Go's reflect.Type.String() for a value. */
export function typeName(v: unknown): string {
  if (v instanceof Iface) return "interface {}";
  if (v === undefined || v === null) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "float64";
  if (v instanceof GoInt) return v.type;
  if (Array.isArray(v)) return sliceType(v) ?? "[]interface {}";
  if (v instanceof GoObject) return v.typeName;
  return "map[string]interface {}";
}

export type Kind = "invalid" | "bool" | "int" | "float" | "string" | "slice" | "map" | "interface" | "struct";

export function kindOf(v: unknown): Kind {
  if (v instanceof Iface) return "interface";
  if (v === undefined) return "invalid";
  if (v === null) return "interface";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "float";
  if (v instanceof GoInt) return "int";
  if (Array.isArray(v)) return "slice";
  if (v instanceof GoObject) return v.spec.kind;
  return "map";
}

/** Go's isTrue: the truth of a value for if/with/and/or/not. */
export function isTrue(v: unknown): boolean {
  const u = unbox(v);
  if (u === undefined || u === null) return false;
  if (typeof u === "string") return u.length > 0;
  if (typeof u === "boolean") return u;
  if (typeof u === "number") return u !== 0;
  if (u instanceof GoInt) return u.value !== 0n;
  if (Array.isArray(u)) return u.length > 0;
  if (u instanceof GoObject) {
    const under = u.underlying;
    if (u.spec.kind === "struct") return true;
    if (typeof under === "string" || Array.isArray(under)) return under.length > 0;
    return isMap(under) && Object.keys(under).length > 0;
  }
  return Object.keys(u).length > 0;
}

/** Keys of a map in Go's fmtsort order (strings sort bytewise, which for keys is UTF-16 order in practice). */
export function sortedKeys(m: GoMap): string[] {
  return Object.keys(m).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Converts JSON-like input into executor values: with `integers: "int64"`, integral numbers
 * become int64 (as the template dialect specifies); otherwise every number stays float64, as
 * encoding/json does.
 */
export function fromJson(v: unknown, integers: "int64" | "float64"): GoValue {
  if (typeof v === "number") return integers === "int64" && Number.isSafeInteger(v) ? int64(v) : v;
  if (Array.isArray(v)) return v.map((e) => fromJson(e, integers));
  if (typeof v === "bigint") return int64(v);
  if (v instanceof GoObject || v instanceof GoInt) return v;
  if (isMap(v)) {
    // fromEntries defines own properties, so a "__proto__" key stays a key (assignment would set the prototype).
    return Object.fromEntries(Object.entries(v).filter(([, e]) => e !== undefined).map(([k, e]) => [k, fromJson(e, integers)]));
  }
  return v === undefined ? null : (v as GoValue);
}
