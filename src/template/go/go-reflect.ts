/**
 * What Sprig learns through Go's reflect: a value's kind name (kindOf), its elements when it is
 * a slice (lists of any element type, typed slices, typed objects), and reflect.DeepEqual.
 */
import { GoObject } from "./go-object.js";
import { GoInt, Iface, isMap, sliceType, typedSlice, typeName } from "./values.js";

const plain = (v: unknown): unknown => (v instanceof Iface ? v.inner : v);

/** reflect.Kind.String() of an interface{} argument. */
export function reflectKind(v: unknown): string {
  const u = plain(v);
  if (u === null || u === undefined) return "invalid";
  if (typeof u === "string") return "string";
  if (typeof u === "boolean") return "bool";
  if (typeof u === "number") return "float64";
  if (u instanceof GoInt) return u.type;
  if (Array.isArray(u)) return "slice";
  if (u instanceof GoObject) return u.typeName.startsWith("*") ? "ptr" : u.spec.kind;
  return "map";
}

/** The elements of a slice of any type, or undefined when `v` is not a slice. */
export function sliceElements(v: unknown): unknown[] | undefined {
  const u = plain(v);
  if (Array.isArray(u)) return u.map(plain);
  if (u instanceof GoObject && u.spec.kind === "slice" && Array.isArray(u.spec.value)) return (u.spec.value as unknown[]).map(plain);
  return undefined;
}

/** reflect.DeepEqual on template values (types must match too: int64 1 ≠ float64 1). */
export function deepEqual(a: unknown, b: unknown): boolean {
  const x = plain(a);
  const y = plain(b);
  if (x === null || x === undefined || y === null || y === undefined) return (x ?? null) === (y ?? null);
  if (typeName(x) !== typeName(y)) return false;
  if (x instanceof GoInt) return y instanceof GoInt && x.value === y.value;
  if (Array.isArray(x)) return Array.isArray(y) && x.length === y.length && x.every((e, i) => deepEqual(e, y[i]));
  if (isMap(x)) {
    if (!isMap(y)) return false;
    const kx = Object.keys(x);
    return kx.length === Object.keys(y).length && kx.every((k) => Object.hasOwn(y, k) && deepEqual(x[k], y[k]));
  }
  if (x instanceof GoObject) return y instanceof GoObject && deepEqual(x.underlying, y.underlying);
  return x === y;
}

/** copystructure's deep copy of maps and slices (typed slices keep their type). */
export function deepCopy(v: unknown): unknown {
  const u = plain(v);
  if (Array.isArray(u)) {
    const t = sliceType(u);
    return t === undefined ? u.map(deepCopy) : typedSlice(u.map(deepCopy), t);
  }
  if (isMap(u)) return Object.fromEntries(Object.entries(u).map(([k, e]) => [k, deepCopy(e)]));
  return u;
}
