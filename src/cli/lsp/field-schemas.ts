/**
 * The OpenAPI schema behind a selection chain in `${…}`: `schema.spec…` from the RGD's own
 * SimpleSchema (parsed by the compiler's parser), `<id>…` from the resource kind's schema (the
 * built-in Kubernetes schemas, as `kro validate` reads them offline). Completion lists the
 * properties found there, hover describes the field.
 */
import type { OpenApiSchema } from "../../expr/index.js";
import { schemaAt, type SchemaResolver } from "../../graph/index.js";
import { parseSimpleSchema } from "../../schema/index.js";
import type { RgdIndex } from "./rgd-index.js";

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** The instance's spec schema, or undefined while spec.schema does not parse. */
function specSchema(rgd: RgdIndex): OpenApiSchema | undefined {
  const schema = field(field(rgd.document.value, "spec"), "schema");
  return parseSimpleSchema(field(schema, "spec") ?? {}, { types: field(schema, "types") }).schema;
}

/** What `schema` itself offers: the instance's spec and its metadata (ObjectMeta). */
function instanceSchema(rgd: RgdIndex, resolver: SchemaResolver): OpenApiSchema {
  const metadata = resolver.resolve("v1", "ConfigMap")?.schema.properties?.metadata;
  const spec = specSchema(rgd);
  return {
    type: "object",
    properties: {
      ...(spec === undefined
        ? {}
        : { spec: { ...spec, description: "the instance's spec, as spec.schema.spec declares it" } }),
      ...(metadata === undefined ? {} : { metadata }),
    },
  };
}

/** The schema of the value a chain selects, when the chain starts at `schema` or a resource id. */
export function chainSchema(
  rgd: RgdIndex,
  resolver: SchemaResolver,
  chain: readonly (string | number)[],
): OpenApiSchema | undefined {
  const [head, ...rest] = chain;
  if (head === "schema") return schemaAt(instanceSchema(rgd, resolver), rest);
  const resource = rgd.resources.find((r) => r.id === head);
  if (resource?.apiVersion === undefined || resource.kind === undefined) return undefined;
  return schemaAt(resolver.resolve(resource.apiVersion, resource.kind)?.schema, rest);
}

/** A short type for a detail line: `string`, `integer`, `[]object`, `map[string]string`. */
export function describeType(schema: OpenApiSchema): string {
  if (schema.type === "array") return `[]${schema.items === undefined ? "any" : describeType(schema.items)}`;
  const extra = schema as { additionalProperties?: unknown };
  if (schema.type === "object" && schema.properties === undefined && typeof extra.additionalProperties === "object")
    return `map[string]${describeType(extra.additionalProperties as OpenApiSchema)}`;
  return schema.type ?? "any";
}
