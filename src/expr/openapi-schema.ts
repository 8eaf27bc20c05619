/**
 * The minimal OpenAPI v3 schema shape the expression layer reads. Defined here (not imported from
 * src/schema, which is written in parallel) so expr depends only on plain JSON.
 */
export interface OpenApiSchema {
  readonly type?: string;
  readonly format?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly items?: OpenApiSchema;
  readonly additionalProperties?: boolean | OpenApiSchema;
  readonly required?: readonly string[];
  readonly maxItems?: number;
  readonly maxLength?: number;
  readonly maxProperties?: number;
  readonly enum?: readonly unknown[];
  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
  readonly anyOf?: readonly OpenApiSchema[];
  readonly allOf?: readonly OpenApiSchema[];
  readonly oneOf?: readonly OpenApiSchema[];
}

/** Schemaless: CEL sees `dyn` (preserve-unknown-fields, int-or-string, no type at all). */
export function isSchemaless(s: OpenApiSchema | undefined): boolean {
  if (s === undefined) return true;
  if (s["x-kubernetes-int-or-string"] === true) return true;
  if (
    s["x-kubernetes-preserve-unknown-fields"] === true &&
    s.properties === undefined &&
    s.additionalProperties === undefined
  )
    return true;
  return s.type === undefined && s.properties === undefined && s.items === undefined;
}

/** Schema of a map's values, or undefined when the object is a struct or schemaless. */
export function mapValueSchema(s: OpenApiSchema): OpenApiSchema | true | undefined {
  const ap = s.additionalProperties;
  if (ap === true) return true;
  if (typeof ap === "object") return ap;
  return undefined;
}
