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

/** Names that hold a value only in part of the RGD: forEach variables, `each` in a collection's readyWhen. */
export type LocalNames = ReadonlyMap<string, OpenApiSchema | undefined>;

const NO_LOCALS: LocalNames = new Map();

/** The schema of a kind written as apiVersion and kind (either may still be missing while one types). */
export function kindSchema(
  resolver: SchemaResolver,
  resource: { readonly apiVersion?: string; readonly kind?: string } | undefined,
): OpenApiSchema | undefined {
  if (resource?.apiVersion === undefined || resource.kind === undefined) return undefined;
  return resolver.resolve(resource.apiVersion, resource.kind)?.schema;
}

/** The schema of the value a chain selects, when the chain starts at `schema`, a resource id or a local name. */
export function chainSchema(
  rgd: RgdIndex,
  resolver: SchemaResolver,
  chain: readonly (string | number)[],
  locals: LocalNames = NO_LOCALS,
): OpenApiSchema | undefined {
  const [head, ...rest] = chain;
  if (typeof head === "string" && locals.has(head)) return schemaAt(locals.get(head), rest);
  if (head === "schema") return schemaAt(instanceSchema(rgd, resolver), rest);
  const resource = rgd.resources.find((r) => r.id === head);
  return resource === undefined ? undefined : schemaAt(kindSchema(resolver, resource), rest);
}

/** A list written as one plain selection (`${schema.spec.regions}`): the chain it selects. */
function plainChain(expression: string): string[] | undefined {
  const match = /^\$\{\s*([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\}$/.exec(expression.trim());
  return match?.[1]?.split(".").map((step) => step.trim());
}

/**
 * The local names at `offset`: the forEach variables of the resource entry holding it (typed as
 * an item of their list where that list is a plain selection), and `each` inside a collection's
 * readyWhen.
 */
export function localsAt(rgd: RgdIndex, resolver: SchemaResolver, offset: number): LocalNames {
  const resource = rgd.resources.find((r) => r.extent.start <= offset && offset <= r.extent.end);
  if (resource === undefined || resource.iterators.length === 0) return NO_LOCALS;
  const locals = new Map<string, OpenApiSchema | undefined>();
  for (const iterator of resource.iterators) {
    const over = plainChain(iterator.over);
    locals.set(iterator.name, over === undefined ? undefined : chainSchema(rgd, resolver, over)?.items);
  }
  const { readyWhen } = resource;
  if (readyWhen !== undefined && readyWhen.start <= offset && offset <= readyWhen.end)
    return new Map([["each", kindSchema(resolver, resource)]]);
  return locals;
}

/** A short type for a detail line: `string`, `integer`, `[]object`, `map[string]string`. */
export function describeType(schema: OpenApiSchema): string {
  if (schema.type === "array") return `[]${schema.items === undefined ? "any" : describeType(schema.items)}`;
  const extra = schema as { additionalProperties?: unknown };
  if (schema.type === "object" && schema.properties === undefined && typeof extra.additionalProperties === "object")
    return `map[string]${describeType(extra.additionalProperties as OpenApiSchema)}`;
  return schema.type ?? "any";
}
