/**
 * Ordering and equality of CEL values for library functions (sort, distinct, min/max, isSorted).
 * Only values CEL itself can compare with `<` are orderable.
 */
import { LibraryError, isCelMap, mapEntries } from "./lib-support.js";
import { compareCodePoints } from "./string-order.js";

function rank(v: unknown): "num" | "string" | "bool" | "bytes" | "time" | "other" {
  if (typeof v === "bigint" || typeof v === "number") return "num";
  if (typeof v === "object" && v !== null && v.constructor.name === "UnsignedInt") return "num";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (v instanceof Uint8Array) return "bytes";
  if (v instanceof Date) return "time";
  return "other";
}

function num(v: unknown): bigint | number {
  if (typeof v === "bigint" || typeof v === "number") return v;
  return (v as { valueOf(): bigint }).valueOf();
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  if (ra !== rank(b) || ra === "other")
    throw new LibraryError("no_such_overload", "no such overload: values are not comparable");
  switch (ra) {
    case "num": {
      const x = num(a),
        y = num(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case "string":
      return compareCodePoints(a as string, b as string);
    case "bool":
      return Number(a) - Number(b);
    case "bytes":
      return Buffer.compare(a as Uint8Array, b as Uint8Array);
    default:
      return (a as Date).getTime() - (b as Date).getTime();
  }
}

export function valuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ra = rank(a);
  if (ra === "num" && rank(b) === "num") return num(a) == num(b); // loose: int/double cross-type equality is CEL semantics
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => valuesEqual(x, b[i]));
  if (isCelMap(a) && isCelMap(b)) {
    const ea = mapEntries(a),
      eb = new Map(mapEntries(b));
    return ea.length === eb.size && ea.every(([k, v]) => eb.has(k) && valuesEqual(v, eb.get(k)));
  }
  return false;
}
