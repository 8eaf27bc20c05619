/**
 * The spec schema of the new kind, from the chart: values.schema.json when the chart has one
 * (converted to a structural CRD schema), otherwise inferred from values.yaml. Either way the
 * chart's values become defaults and values.yaml comments become descriptions. Every object stays
 * open (x-kubernetes-preserve-unknown-fields): chart templates pass maps through toYaml, so a key
 * values.yaml does not show (a probe's initialDelaySeconds) is still a value Helm would accept.
 */
import type { LoadedChart } from "./chart-load.js";

export type JsonSchema = Record<string, unknown>;

const OPEN = "x-kubernetes-preserve-unknown-fields";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(schema: JsonSchema, comments: ReadonlyMap<string, string>, path: readonly string[]): JsonSchema {
  const comment = comments.get(path.join("\u0000"));
  return comment === undefined || schema.description !== undefined ? schema : { description: comment, ...schema };
}

/** A schema for a value as values.yaml gives it. */
export function inferSchema(
  value: unknown,
  comments: ReadonlyMap<string, string>,
  path: readonly string[] = [],
): JsonSchema {
  let schema: JsonSchema;
  if (value === null || value === undefined) schema = { nullable: true, [OPEN]: true };
  // An empty string is a placeholder, not a type: charts document `minReplicas: ""` and expect 2.
  else if (value === "") schema = { [OPEN]: true, default: value };
  else if (typeof value === "string") schema = { type: "string", default: value };
  else if (typeof value === "boolean") schema = { type: "boolean", default: value };
  else if (typeof value === "number")
    schema = Number.isInteger(value) ? { type: "integer", default: value } : { type: "number", default: value };
  else if (Array.isArray(value)) schema = { type: "array", items: { [OPEN]: true }, default: value };
  else if (isRecord(value)) {
    const properties: Record<string, JsonSchema> = {};
    for (const [key, child] of Object.entries(value)) properties[key] = inferSchema(child, comments, [...path, key]);
    schema = {
      type: "object",
      ...(Object.keys(properties).length > 0 ? { properties } : {}),
      [OPEN]: true,
      default: {},
    };
  } else schema = { [OPEN]: true };
  return describe(schema, comments, path);
}

const KEEP = [
  "description",
  "enum",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "format",
  "multipleOf",
];

const SCALARS = new Set(["string", "integer", "number", "boolean"]);

/**
 * Keywords a structural schema says otherwise: `uniqueItems: true` is refused by the API server
 * (quadratic to check); for a list of scalars `x-kubernetes-list-type: set` means the same, any
 * other list drops it. A nullable enum lists null, or the API server refuses the null it allows.
 */
function structural(out: JsonSchema, source: Record<string, unknown>): void {
  if (source.uniqueItems === true && out.type === "array") {
    const items = isRecord(out.items) ? out.items : {};
    if (typeof items.type === "string" && SCALARS.has(items.type)) out["x-kubernetes-list-type"] = "set";
  }
  if (out.nullable === true || (Array.isArray(out.enum) && out.enum.includes(null))) Object.assign(out, nullable(out));
}

/** The schema accepting null as well: `nullable`, and null among its enum values if it has any. */
function nullable(schema: JsonSchema): JsonSchema {
  const values: unknown[] | undefined = Array.isArray(schema.enum) ? schema.enum : undefined;
  const withNull = values !== undefined && !values.includes(null) ? { enum: [...values, null] } : {};
  return { ...schema, nullable: true, ...withNull };
}
const TYPES = new Set(["string", "integer", "number", "boolean", "object", "array"]);

/**
 * A JSON Schema (values.schema.json) as a structural CRD schema: types resolved (`["string",
 * "null"]` → nullable string), constructs a CRD cannot hold ($ref, oneOf/anyOf/allOf without a
 * type, no type at all) become open values, validation keywords kept, `default` from values.yaml.
 */
export function convertJsonSchema(
  given: unknown,
  defaults: unknown,
  comments: ReadonlyMap<string, string>,
  path: readonly string[] = [],
  refs: RefScope = { root: given, open: [] },
): JsonSchema {
  const resolved = resolveRef(given, refs);
  const { scope } = resolved;
  // A reference that cannot be followed says nothing about the value: an open one.
  const schema = resolved.schema === OPEN_REF ? {} : resolved.schema;
  if (!isRecord(schema)) return inferSchema(defaults, comments, path);
  let type = schema.type;
  let nullable = false;
  if (Array.isArray(type)) {
    nullable = type.includes("null");
    const rest = type.filter((t) => t !== "null");
    type = rest.length === 1 ? rest[0] : undefined;
  }
  const out: JsonSchema = {};
  for (const key of KEEP) if (schema[key] !== undefined) out[key] = schema[key];
  // JSON Schema draft 6+ gives the bound itself; OpenAPI v3 (CRDs) a flag on minimum/maximum.
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    const value = schema[exclusive];
    if (typeof value === "number") Object.assign(out, { [bound]: value, [exclusive]: true });
    else if (value === true) out[exclusive] = true;
  }
  if (typeof type !== "string" || !TYPES.has(type)) {
    Object.assign(out, { [OPEN]: true, ...(nullable || type === "null" ? { nullable: true } : {}) });
    delete out.enum;
  } else {
    out.type = type;
    if (nullable) out.nullable = true;
    if (type === "object") {
      const props = isRecord(schema.properties) ? schema.properties : {};
      const values = isRecord(defaults) ? defaults : {};
      const properties: Record<string, JsonSchema> = {};
      for (const key of new Set([...Object.keys(props), ...Object.keys(values)]))
        properties[key] = convertJsonSchema(props[key], values[key], comments, [...path, key], scope);
      if (Object.keys(properties).length > 0) out.properties = properties;
      const required = requiredKeys(schema.required, defaults);
      if (required.length > 0) out.required = required;
      // additionalProperties: false stays closed; a schema or true keeps the map open.
      if (schema.additionalProperties !== false) out[OPEN] = true;
    }
    if (type === "array") {
      const items = resolveRef(schema.items, scope).schema;
      out.items =
        isRecord(items) && typeof items.type === "string"
          ? convertJsonSchema(schema.items, undefined, comments, [], scope)
          : { [OPEN]: true };
    }
  }
  // An object's default is `{}`: the API server then fills in each property's own default.
  if (defaults !== undefined && defaults !== null && out.default === undefined)
    out.default = isRecord(defaults) ? {} : defaults;
  structural(out, schema);
  return describe(out, comments, path);
}

/**
 * The `required` keys a CRD can keep. Where values.yaml gives the object, Helm has checked them
 * against it already (a chart whose defaults fail its own schema does not install), and every
 * such key is defaulted from values.yaml or null there — but an object's default (`spec: {}`, or
 * `{}` of a nested object) is checked against `required` as written, before its properties'
 * defaults apply (`default.service: Required value`, the CRD refused). So they are dropped; only
 * an object values.yaml does not give keeps its `required`.
 */
function requiredKeys(required: unknown, defaults: unknown): string[] {
  if (!Array.isArray(required) || isRecord(defaults)) return [];
  return required.filter((r): r is string => typeof r === "string");
}

/** The root document `$ref`s point into, and the references being expanded (a cycle stays open). */
interface RefScope {
  readonly root: unknown;
  readonly open: readonly string[];
}

/** A `$ref` that cannot be followed (remote, missing, or a cycle): the value stays open. */
const OPEN_REF = Symbol("open");

/**
 * A schema with its local `$ref` (`#/definitions/x`, `#/$defs/x`, any JSON pointer) followed, as
 * Helm's validator does; keywords beside the `$ref` apply too (JSON Schema 2019-09 and later).
 * Charts that share definitions between values (bitnami's `common`, for one) need it, or their
 * defaults vanish from the CRD.
 */
function resolveRef(schema: unknown, scope: RefScope): { schema: unknown; scope: RefScope } {
  if (!isRecord(schema) || typeof schema.$ref !== "string") return { schema, scope };
  const ref = schema.$ref;
  if (!ref.startsWith("#") || scope.open.includes(ref)) return { schema: OPEN_REF, scope };
  let target: unknown = scope.root;
  for (const token of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~");
    target = isRecord(target) ? target[key] : undefined;
  }
  if (!isRecord(target)) return { schema: OPEN_REF, scope };
  const { $ref: _ref, ...beside } = schema;
  return resolveRef({ ...target, ...beside }, { root: scope.root, open: [...scope.open, ref] });
}

/** The spec schema for a chart with its (coalesced) values. */
export function specSchema(chart: LoadedChart, values: Record<string, unknown>): JsonSchema {
  const root =
    chart.schema === undefined
      ? inferSchema(values, chart.valueComments)
      : convertJsonSchema(chart.schema, values, chart.valueComments);
  // Subcharts: their own schema (or inference) under their key.
  const properties = isRecord(root.properties) ? { ...root.properties } : {};
  for (const sub of chart.subcharts) {
    const subValues = isRecord(values[sub.name]) ? values[sub.name] : {};
    properties[sub.name] = {
      description: `Values of the ${sub.name} subchart.`,
      ...specSchema(sub, subValues as Record<string, unknown>),
      default: {},
    };
  }
  const { default: _default, ...rest } = root;
  return {
    ...rest,
    type: "object",
    ...(Object.keys(properties).length > 0 ? { properties: nullableDefaults(properties) } : {}),
  };
}

/**
 * Every property with a default accepts null. Helm deletes a key the user sets to null (the
 * documented way to drop a chart default, `resources: null`); the API server would instead
 * replace a null in a non-nullable field by the default, so the chart's default came back. With
 * `nullable: true` the null is stored and templates see nil where Helm sees no key: the same for
 * if/with/default/required and printing; only `hasKey` and a `toYaml` of the parent map differ
 * (docs/design/helm-import.md).
 */
function nullableDefaults(properties: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(properties).map(([key, property]) => {
      if (!isRecord(property)) return [key, property];
      const inner = isRecord(property.properties) ? { properties: nullableDefaults(property.properties) } : {};
      const next = { ...property, ...inner };
      return [key, property.default === undefined ? next : nullable(next)];
    }),
  );
}
