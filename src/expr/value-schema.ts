/**
 * The part of a kind's schema that decides how its JSON converts to CEL values: the leaves that
 * are not what the JSON alone suggests (date and date-time strings → timestamp, duration strings
 * → duration, `format: byte` → bytes, `number` → double even when whole). kro converts observed
 * objects with their kind's schema (pkg/graph/builder.go keeps ResourceSchemas for the runtime);
 * carrying only this skeleton keeps the compiled graph small.
 */
import { mapValueSchema, type OpenApiSchema } from "./openapi-schema.js";

const FORMATS = new Set(["date", "date-time", "duration", "byte"]);

function typedLeaf(s: OpenApiSchema): OpenApiSchema | undefined {
  if (s.type === "number") return { type: "number" };
  if (s.type === "string" && s.format !== undefined && FORMATS.has(s.format))
    return { type: "string", format: s.format };
  return undefined;
}

/** The skeleton of `schema` leading to its typed leaves; undefined when it has none. */
export function valueConversionSchema(schema: OpenApiSchema | undefined, depth = 0): OpenApiSchema | undefined {
  if (schema === undefined || depth > 32) return undefined;
  const leaf = typedLeaf(schema);
  if (leaf !== undefined) return leaf;
  if (schema["x-kubernetes-int-or-string"] === true) return undefined;
  if (schema.type === "array" || schema.items !== undefined) {
    const items = valueConversionSchema(schema.items, depth + 1);
    return items === undefined ? undefined : { type: "array", items };
  }
  const properties: Record<string, OpenApiSchema> = {};
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const kept = valueConversionSchema(child, depth + 1);
    if (kept !== undefined) properties[key] = kept;
  }
  const values = mapValueSchema(schema);
  const additional = typeof values === "object" ? valueConversionSchema(values, depth + 1) : undefined;
  if (Object.keys(properties).length === 0 && additional === undefined) return undefined;
  return {
    type: "object",
    ...(Object.keys(properties).length > 0 ? { properties } : {}),
    ...(additional === undefined ? {} : { additionalProperties: additional }),
  };
}
