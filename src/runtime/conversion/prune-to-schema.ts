/**
 * The implicit half of a conversion: the source value cut down to what the target schema can
 * hold — fields the target does not declare go, and so does a value whose JSON type the target
 * field does not accept (a field renamed and retyped must be mapped explicitly). Free-form parts
 * (preserve-unknown-fields, int-or-string) are kept as they are.
 */
import type { JSONSchemaProps } from "../../schema/index.js";

function typeFits(value: unknown, schema: JSONSchemaProps): boolean {
  if (schema["x-kubernetes-int-or-string"] === true) return typeof value === "string" || Number.isInteger(value);
  switch (schema.type) {
    case undefined:
      return true;
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

/** The part of `value` that `schema` holds, or undefined when nothing of it fits. */
export function pruneToSchema(value: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (schema === undefined || value === undefined) return undefined;
  if (value === null) return schema.nullable === true ? null : undefined;
  if (!typeFits(value, schema)) return undefined;
  if (Array.isArray(value))
    return schema.items === undefined
      ? value
      : value.flatMap((item: unknown) => {
          const kept = pruneToSchema(item, schema.items);
          return kept === undefined ? [] : [kept];
        });
  if (typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const props = schema.properties;
  const extra = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
  if (props === undefined && extra === undefined)
    return schema["x-kubernetes-preserve-unknown-fields"] === true || schema.additionalProperties === true
      ? structuredClone(record)
      : {};
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(record)) {
    const childSchema =
      props?.[key] ?? extra ?? (schema["x-kubernetes-preserve-unknown-fields"] === true ? {} : undefined);
    const kept = pruneToSchema(child, childSchema);
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}
