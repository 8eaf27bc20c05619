/**
 * A value that satisfies one schema node, for a sample instance (`kro generate instance`): the
 * default when there is one, otherwise the smallest value that meets the node's enum, bounds,
 * length, pattern and format. Deterministic (kro's emulator picks random values; a sample people
 * commit should not change on every run). CEL rules (`x-kubernetes-validations`) cannot be
 * solved in general: the caller validates the result and names what still fails.
 */
import { compileGoRegexpCached, GoRegexpSyntaxError } from "./go-regexp.js";
import type { JSONSchemaProps, JsonValue } from "./openapi-types.js";

/** Examples for the string formats the API server checks (k8s.io/kube-openapi strfmt). */
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  "date-time": "2025-01-01T00:00:00Z",
  date: "2025-01-01",
  email: "user@example.com",
  uri: "https://example.com",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  cidr: "192.0.2.0/24",
  uuid: "00000000-0000-4000-8000-000000000000",
  byte: "c2FtcGxl",
  duration: "30s",
  mac: "00:00:5e:00:53:01",
};

function patternMatches(pattern: string, value: string): boolean {
  try {
    return compileGoRegexpCached(pattern).test(value);
  } catch (e) {
    if (e instanceof GoRegexpSyntaxError) return true; // the API server's verdict, not ours
    throw e;
  }
}

/** A DNS-label-safe word from a field name, so a sample name can also name a child object. */
export function kebabWord(key: string): string {
  const word = key
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return word === "" ? "sample" : word;
}

function fitsLength(schema: JSONSchemaProps, value: string): boolean {
  const length = Array.from(value).length; // code points, as the API server counts
  return length >= (schema.minLength ?? 0) && (schema.maxLength === undefined || length <= schema.maxLength);
}

function sampleString(schema: JSONSchemaProps, key: string): string {
  const word = kebabWord(key);
  const format = schema.format === undefined ? undefined : FORMAT_EXAMPLES[schema.format];
  const candidates = [
    ...(format === undefined ? [] : [format]),
    word,
    "sample",
    "a",
    "a1",
    "1",
    "example.com",
    "https://example.com",
    "user@example.com",
    "1.0.0",
    "A",
    "a-b",
  ];
  const min = schema.minLength ?? 0;
  // Length bounds first: pad or cut the field's own word when no fixed candidate fits.
  candidates.push(word.padEnd(min, "x"), word.slice(0, schema.maxLength ?? word.length).padEnd(min, "x"));
  const ok = (v: string): boolean =>
    fitsLength(schema, v) && (schema.pattern === undefined || patternMatches(schema.pattern, v));
  return candidates.find(ok) ?? word;
}

function sampleNumber(schema: JSONSchemaProps, integer: boolean): number {
  const step = integer ? 1 : 0.5;
  let value = 1;
  if (schema.minimum !== undefined) value = schema.minimum + (schema.exclusiveMinimum === true ? step : 0);
  else if (schema.maximum !== undefined && schema.maximum < 1)
    value = schema.maximum - (schema.exclusiveMaximum === true ? step : 0);
  if (integer) value = Math.ceil(value);
  if (schema.multipleOf !== undefined && schema.multipleOf > 0)
    value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  return value;
}

/** The one schema of a oneOf/anyOf to follow: the first (a sample needs one valid branch). */
export function effectiveSchema(schema: JSONSchemaProps): JSONSchemaProps {
  if (schema.type === undefined && schema.properties === undefined) {
    const [branch] = schema.oneOf ?? schema.anyOf ?? [];
    if (branch !== undefined)
      return { ...branch, ...(schema.description === undefined ? {} : { description: schema.description }) };
  }
  return schema;
}

/** The value a field takes in a sample (its default, else a synthesised one). */
export function sampleValue(input: JSONSchemaProps, key: string, allFields: boolean): JsonValue {
  const schema = effectiveSchema(input);
  if (schema.default !== undefined) return schema.default;
  const [firstEnum] = schema.enum ?? [];
  if (firstEnum !== undefined) return firstEnum;
  if (schema["x-kubernetes-int-or-string"] === true) return sampleNumber(schema, true);
  switch (schema.type) {
    case "string":
      return sampleString(schema, key);
    case "integer":
      return sampleNumber(schema, true);
    case "number":
      return sampleNumber(schema, false);
    case "boolean":
      return false;
    case "array": {
      const items = schema.items;
      const count = Math.max(schema.minItems ?? 0, allFields && schema.maxItems !== 0 ? 1 : 0);
      if (items === undefined) return [];
      // Distinct items when the list is a set; the item key keeps strings apart.
      return Array.from({ length: count }, (_, i) => {
        const value = sampleValue(items, i === 0 ? key : `${key}-${i + 1}`, allFields);
        return typeof value === "number" && i > 0 ? value + i : value;
      });
    }
    default:
      return sampleObject(schema, allFields);
  }
}

/** An object: required properties always, the rest only with allFields; map entries as minProperties asks. */
export function sampleObject(schema: JSONSchemaProps, allFields: boolean): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  const required = new Set(schema.required ?? []);
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (required.has(key) || allFields) out[key] = sampleValue(child, key, allFields);
  }
  const extra = schema.additionalProperties;
  if (typeof extra === "object" && Object.keys(out).length < Math.max(schema.minProperties ?? 0, allFields ? 1 : 0)) {
    out.key = sampleValue(extra, "value", allFields);
  }
  return out;
}
