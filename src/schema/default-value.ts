/**
 * `default=` values. kro parses atomic types with Go's strconv and takes anything else (arrays,
 * maps, objects, custom types) as raw JSON; a string default is wrapped in quotes *without*
 * escaping, so `default=a\nb` holds a newline and `default=a"b` is invalid. We also check the
 * result against the field's schema, because the API server would reject the CRD otherwise.
 */
import { parseGoBool, parseGoFloat64, parseGoInt64 } from "./go-literals.js";
import type { JSONSchemaProps, JsonValue } from "./openapi-types.js";
import type { TypeExpression } from "./type-expression.js";

export type DefaultParse = { readonly value: JsonValue } | { readonly error: string };

export function parseDefaultValue(raw: string, type: TypeExpression, schema: JSONSchemaProps): DefaultParse {
  if (type.kind === "atomic") {
    switch (type.name) {
      case "string": {
        const parsed = parseJson(`"${raw}"`);
        return parsed === undefined
          ? { error: `default ${JSON.stringify(raw)} is not a valid string literal` }
          : { value: parsed };
      }
      case "integer": {
        const parsed = parseGoInt64(raw);
        return "error" in parsed ? { error: `default ${parsed.error}` } : parsed;
      }
      case "float": {
        const parsed = parseGoFloat64(raw);
        return "error" in parsed ? { error: `default ${parsed.error}` } : parsed;
      }
      case "boolean": {
        const parsed = parseGoBool(raw);
        return parsed === undefined ? { error: `default "${raw}" is not a boolean` } : { value: parsed };
      }
    }
  }
  const parsed = parseJson(raw);
  if (parsed === undefined) return { error: `default ${JSON.stringify(raw)} is not valid JSON` };
  const mismatch = findSchemaMismatch(parsed, schema, "");
  return mismatch === undefined
    ? { value: parsed }
    : { error: `default ${raw} does not match the field's schema: ${mismatch}` };
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

const isRecord = (v: unknown): v is Readonly<Record<string, JsonValue>> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The first place where `value` has the wrong JSON type for `schema` (types only; the API server
 * checks the finer constraints). Iterative so a deeply nested default cannot overflow the stack.
 */
export function findSchemaMismatch(value: JsonValue, schema: JSONSchemaProps, at: string): string | undefined {
  const stack: [JsonValue, JSONSchemaProps, string][] = [[value, schema, at]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [v, s, where] = item;
    const label = where === "" ? "value" : where;
    switch (s.type) {
      case "string":
        if (typeof v !== "string") return `${label} must be a string`;
        break;
      case "boolean":
        if (typeof v !== "boolean") return `${label} must be a boolean`;
        break;
      case "number":
        if (typeof v !== "number") return `${label} must be a number`;
        break;
      case "integer":
        if (typeof v !== "number" || !Number.isInteger(v)) return `${label} must be an integer`;
        break;
      case "array":
        if (!Array.isArray(v)) return `${label} must be an array`;
        if (s.items !== undefined)
          for (const [i, e] of (v as readonly JsonValue[]).entries()) stack.push([e, s.items, `${where}[${i}]`]);
        break;
      case "object":
        if (!isRecord(v)) return `${label} must be an object`;
        for (const [key, child] of Object.entries(v)) {
          const childSchema =
            s.properties !== undefined && Object.hasOwn(s.properties, key)
              ? s.properties[key]
              : typeof s.additionalProperties === "object"
                ? s.additionalProperties
                : undefined;
          if (childSchema !== undefined) stack.push([child, childSchema, where === "" ? key : `${where}.${key}`]);
        }
        break;
      default:
        break;
    }
  }
  return undefined;
}
