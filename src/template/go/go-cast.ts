/**
 * The value conversions Sprig relies on: strval (fmt %v of anything), spf13/cast's ToInt64 and
 * ToFloat64 (numbers, numeric strings, bools, nil → 0), and Sprig's `empty`.
 */
import { parseGoFloat, parseGoInteger } from "./go-literals.js";
import { formatValue } from "./go-fmt.js";
import { GoObject } from "./go-object.js";
import { GoInt, isMap, type GoValue } from "./values.js";

const spec = { minus: false, plus: false, sharp: false, space: false, zero: false };

/** Sprig's strval: strings as is, everything else as fmt's %v. */
export function strval(v: GoValue): string {
  if (v instanceof GoObject) {
    if (v.spec.bytes !== undefined) return new TextDecoder().decode(v.spec.bytes);
    if (v.spec.stringer !== undefined) return v.spec.stringer();
  }
  return typeof v === "string" ? v : formatValue(v, "v", spec);
}

/** cast's trimZeroDecimal: "12.000" → "12". */
function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length; i > 0; i--) {
    const c = s[i - 1];
    if (c === ".") {
      if (foundZero) return s.slice(0, i - 1);
    } else if (c === "0") foundZero = true;
    else return s;
  }
  return s;
}

export function toInt64(v: GoValue): bigint {
  if (v instanceof GoInt) return v.value;
  if (typeof v === "number") return Number.isFinite(v) ? BigInt.asIntN(64, BigInt(Math.trunc(v))) : -(1n << 63n);
  if (typeof v === "string") return parseGoInteger(trimZeroDecimal(v), false) ?? 0n;
  if (typeof v === "boolean") return v ? 1n : 0n;
  return 0n;
}

export function toFloat64(v: GoValue): number {
  if (typeof v === "number") return v;
  if (v instanceof GoInt) return Number(v.value);
  if (typeof v === "string") return parseGoFloat(v) ?? 0;
  if (typeof v === "boolean") return v ? 1 : 0;
  return 0;
}

/** Sprig's empty: nil, zero numbers, false, and empty strings, lists and maps. */
export function isEmpty(v: GoValue): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === "string") return v.length === 0;
  if (typeof v === "boolean") return !v;
  if (typeof v === "number") return v === 0;
  if (v instanceof GoInt) return v.value === 0n;
  if (Array.isArray(v)) return v.length === 0;
  return isMap(v) && Object.keys(v).length === 0;
}
