/**
 * A status expression's CEL type → the OpenAPI schema kro writes into the generated CRD.
 * kro's rules (pkg/graph/schema/conversion_cel_type.go: inferSchemaFromCELType and
 * extractSchemaFromDeclTypeWithCycleDetection), not the child's schema copied verbatim: a struct
 * becomes `{type: object, properties}` rebuilt field by field from its CEL field types, so nothing
 * of the child's schema (format, default, required, enum, description) leaks into the CRD. That
 * copy is what made the API server reject CRDs (`items.default.type: Required value`).
 */
import { parseTypeName, type SchemaTypeRegistry } from "./cel-types.js";
import { isSchemaless, mapValueSchema, type OpenApiSchema } from "./openapi-schema.js";

const PRESERVE: OpenApiSchema = { "x-kubernetes-preserve-unknown-fields": true };

/** kro's primitiveTypeToSchema: the CEL primitives with a JSON representation. */
function primitive(base: string): OpenApiSchema | undefined {
  switch (base) {
    case "bool":
      return { type: "boolean" };
    case "int":
    case "uint":
      return { type: "integer" };
    case "double":
      return { type: "number" };
    case "string":
      return { type: "string" };
    case "bytes":
      return { type: "string", format: "byte" };
    case "null":
      return { description: "null type - any value allowed", "x-kubernetes-preserve-unknown-fields": true };
    default:
      return undefined;
  }
}

/** cel-go's spelling of a type, used in kro's "unknown CEL type" description. */
function goTypeName(name: string): string {
  const { base, params } = parseTypeName(name);
  if (base === "optional") return `optional_type(${params.map(goTypeName).join(", ")})`;
  if (params.length > 0) return `${base}(${params.map(goTypeName).join(", ")})`;
  return base === "null" ? "null_type" : base;
}

/** The status-field schema for an expression of CEL type `name` (as cel-js prints it). */
export function statusSchemaForCelType(name: string, structs?: SchemaTypeRegistry): OpenApiSchema {
  const { base, params } = parseTypeName(name);
  const simple = primitive(base);
  if (simple !== undefined) return simple;
  switch (base) {
    case "dyn":
      return PRESERVE;
    // cel-js prints list(dyn) / map(dyn, dyn) without parameters; cel-go spells the dyn out, so kro
    // emits `items` (`additionalProperties`) preserving unknown fields. An array without `items` is
    // rejected by the API server.
    case "list":
      return { type: "array", items: params[0] === undefined ? PRESERVE : statusSchemaForCelType(params[0], structs) };
    case "map":
      return {
        type: "object",
        additionalProperties: params[1] === undefined ? PRESERVE : statusSchemaForCelType(params[1], structs),
      };
    case "google.protobuf.Timestamp":
      return { type: "string", format: "date-time", description: "Timestamp representing a creation time" };
    default:
      break;
  }
  const struct = structs?.structSchema(base);
  if (struct !== undefined) return declSchema(struct);
  // Optionals, durations, type values and anything else: kro keeps the value, untyped.
  return { description: `unknown CEL type: ${goTypeName(name)}`, "x-kubernetes-preserve-unknown-fields": true };
}

/**
 * kro's walk over a struct's DeclType, expressed on the OpenAPI schema the struct was declared
 * from (Kubernetes' SchemaDeclType decides what each node is in CEL). Only the CEL primitives
 * keep a type; timestamps, durations and dyn fields are kept untyped.
 */
function declSchema(schema: OpenApiSchema): OpenApiSchema {
  if (isSchemaless(schema)) return PRESERVE;
  switch (schema.type) {
    case "integer":
      return { type: "integer" };
    case "number":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "string":
      if (schema.format === "byte") return { type: "string", format: "byte" };
      return schema.format === "date" || schema.format === "date-time" || schema.format === "duration"
        ? PRESERVE
        : { type: "string" };
    case "array":
      return { type: "array", items: schema.items === undefined ? PRESERVE : declSchema(schema.items) };
    default:
      break;
  }
  const values = mapValueSchema(schema);
  if (typeof values === "object") return { type: "object", additionalProperties: declSchema(values) };
  if (schema.properties !== undefined) {
    const properties = Object.fromEntries(
      Object.entries(schema.properties).map(([key, child]) => [key, declSchema(child)]),
    );
    return Object.keys(properties).length === 0 ? { type: "object" } : { type: "object", properties };
  }
  return { type: "object", additionalProperties: true };
}
