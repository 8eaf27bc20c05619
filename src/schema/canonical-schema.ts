/**
 * A fixed key order for schemas, so the same input always serialises to the same bytes (golden
 * files, spec hashes, "no diff → no write" checks). Property names are sorted; JSON data inside
 * `default`/`enum` is left exactly as written.
 */
import type { JSONSchemaProps } from "./openapi-types.js";

const KEY_ORDER: readonly (keyof JSONSchemaProps)[] = [
  "type",
  "format",
  "title",
  "description",
  "default",
  "enum",
  "nullable",
  "minimum",
  "exclusiveMinimum",
  "maximum",
  "exclusiveMaximum",
  "multipleOf",
  "pattern",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "properties",
  "required",
  "items",
  "additionalProperties",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-int-or-string",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-validations",
];
const RANK = new Map<string, number>(KEY_ORDER.map((k, i) => [k, i]));

export function canonicalizeSchema(schema: JSONSchemaProps): JSONSchemaProps {
  const keys = Object.keys(schema).sort(
    (a, b) => (RANK.get(a) ?? KEY_ORDER.length) - (RANK.get(b) ?? KEY_ORDER.length) || (a < b ? -1 : a > b ? 1 : 0),
  );
  const entries: [string, unknown][] = [];
  for (const key of keys) {
    const value: unknown = (schema as Record<string, unknown>)[key];
    if (value === undefined) continue;
    entries.push([key, canonicalValue(key, value)]);
  }
  return Object.fromEntries(entries);
}

function canonicalValue(key: string, value: unknown): unknown {
  switch (key) {
    case "properties":
      return Object.fromEntries(
        Object.keys(value as object)
          .sort()
          .map((name) => [name, canonicalizeSchema((value as Record<string, JSONSchemaProps>)[name] ?? {})]),
      );
    case "items":
    case "not":
      return canonicalizeSchema(value as JSONSchemaProps);
    case "additionalProperties":
      return typeof value === "boolean" ? value : canonicalizeSchema(value as JSONSchemaProps);
    case "allOf":
    case "anyOf":
    case "oneOf":
      return (value as JSONSchemaProps[]).map(canonicalizeSchema);
    default:
      return value;
  }
}
