/**
 * Go's validateType: how a value becomes a function argument of a declared type. Invalid
 * values become nil where Go allows it, interface boxes are opened when that makes the type
 * fit, and anything else is Go's "wrong type for value" error.
 */
import {
  GoInt,
  GoObject,
  Iface,
  isMap,
  isStringSlice,
  paramTypeName,
  toAny,
  typeName,
  type GoValue,
  type ParamType,
} from "../go/index.js";

export class ArgTypeError {
  constructor(readonly message: string) {}
}

function assignable(v: GoValue | Iface, typ: ParamType): boolean {
  switch (typ) {
    case "string":
      return typeof v === "string";
    case "bool":
      return typeof v === "boolean";
    case "float64":
      return typeof v === "number";
    case "int":
    case "int64":
      return v instanceof GoInt && v.type === typ;
    case "map":
      return isMap(v);
    case "slice":
      return Array.isArray(v) && !isStringSlice(v);
    case "time":
      return v instanceof GoObject && v.typeName === "time.Time";
    default:
      return true;
  }
}

/** The argument value, or the error Go reports; `typ` null is an untyped operand. */
export function convertArg(value: GoValue | Iface, typ: ParamType | null): GoValue | Iface | ArgTypeError {
  if (value === undefined) {
    if (typ === null || typ === "value") return undefined; // reflect.ValueOf(nil): invalid
    if (typ === "any") return null;
    if (typ === "map") return {};
    if (typ === "slice") return [];
    return new ArgTypeError(`invalid value; expected ${paramTypeName(typ)}`);
  }
  if (typ === null || typ === "value") return value;
  if (typ === "any") return toAny(value);
  if (assignable(value, typ)) return value;
  let v: GoValue | Iface = value;
  if (v instanceof Iface && v.inner !== null) {
    v = v.inner;
    if (assignable(v, typ)) return v;
  }
  return new ArgTypeError(
    `wrong type for value; expected ${paramTypeName(typ)}; got ${v === null ? "interface {}" : typeName(v)}`,
  );
}
