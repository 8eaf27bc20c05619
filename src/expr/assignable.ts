/**
 * Structural compatibility of an expression's output schema with a target field schema (§4.5):
 * dyn is accepted, lists/maps element-wise, map↔struct both ways, and struct *subset* semantics
 * (the output may omit fields of the target but not add unknown ones). Returns a reason or undefined.
 */
import { isSchemaless, mapValueSchema, type OpenApiSchema } from "./openapi-schema.js";

export function describeSchema(s: OpenApiSchema): string {
  if (isSchemaless(s)) return "dyn";
  switch (s.type) {
    case "integer":
      return "int";
    case "number":
      return "double";
    case "boolean":
      return "bool";
    case "string":
      return s.format === "byte" ? "bytes" : "string";
    case "array":
      return `list(${s.items === undefined ? "dyn" : describeSchema(s.items)})`;
    default: {
      const values = mapValueSchema(s);
      if (s.properties !== undefined) return `object{${Object.keys(s.properties).join(", ")}}`;
      return `map(string, ${typeof values === "object" ? describeSchema(values) : "dyn"})`;
    }
  }
}

function kind(s: OpenApiSchema): string {
  if (isSchemaless(s)) return "dyn";
  if (s.type !== undefined) return s.type;
  return s.properties !== undefined || s.additionalProperties !== undefined ? "object" : "dyn";
}

/** undefined when `actual` can be written where `expected` is required, else the reason. */
export function incompatibility(actual: OpenApiSchema, expected: OpenApiSchema, path = ""): string | undefined {
  if (expected["x-kubernetes-int-or-string"] === true) {
    const k = kind(actual);
    return k === "integer" || k === "string" || k === "dyn" ? undefined : mismatch(actual, expected, path);
  }
  const a = kind(actual),
    e = kind(expected);
  if (a === "dyn" || e === "dyn") return undefined;
  if (e === "number" && a === "integer") return undefined;
  if (a !== e) return mismatch(actual, expected, path);
  if (e === "string" && (actual.format === "byte") !== (expected.format === "byte"))
    return mismatch(actual, expected, path);
  if (e === "array") return incompatibility(actual.items ?? {}, expected.items ?? {}, `${path}[]`);
  if (e !== "object") return undefined;
  const expectedValues = mapValueSchema(expected);
  const actualValues = mapValueSchema(actual);
  for (const [key, child] of Object.entries(actual.properties ?? {})) {
    const target =
      expected.properties?.[key] ??
      (typeof expectedValues === "object" ? expectedValues : expectedValues === true ? {} : undefined);
    if (target === undefined && expected["x-kubernetes-preserve-unknown-fields"] !== true)
      return `${path === "" ? "" : `${path}.`}${key}: unknown field`;
    const reason =
      target === undefined ? undefined : incompatibility(child, target, path === "" ? key : `${path}.${key}`);
    if (reason !== undefined) return reason;
  }
  if (typeof actualValues === "object") {
    if (typeof expectedValues === "object") return incompatibility(actualValues, expectedValues, `${path}[*]`);
    // map → struct: the keys are unknown statically, so the values must fit at least one field.
    const fields = Object.values(expected.properties ?? {});
    if (fields.length > 0 && !fields.some((t) => incompatibility(actualValues, t) === undefined)) {
      return `${path === "" ? "" : `${path}: `}map values of type ${describeSchema(actualValues)} fit no field of ${describeSchema(expected)}`;
    }
  }
  return undefined;
}

function mismatch(actual: OpenApiSchema, expected: OpenApiSchema, path: string): string {
  return `${path === "" ? "" : `${path}: `}got ${describeSchema(actual)}, expected ${describeSchema(expected)}`;
}
