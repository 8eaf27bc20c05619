/**
 * Turns SimpleSchema field specs into OpenAPI: a type string (`"[]string | default=[]"`) or a
 * nested mapping. Shared by the instance spec and by custom type definitions, so it only sees
 * custom types through a lookup and never decides which document it is walking.
 */
import { error, warning, type Issue, type IssuePath } from "../diag/index.js";
import { SCHEMA_ISSUE_CODES, type SchemaIssueCode } from "./issue-codes.js";
import { lexMarkers } from "./marker-lexer.js";
import { applyMarkers } from "./markers.js";
import type { JSONSchemaProps } from "./openapi-types.js";
import { parseTypeExpression, type TypeExpression } from "./type-expression.js";

/** A resolved custom type: its inlined schema, and whether the alias itself said `required=true`. */
export interface CustomType {
  readonly schema: JSONSchemaProps;
  readonly required: boolean;
}

export interface CustomTypeLookup {
  readonly get: (name: string) => CustomType | undefined;
  /** Types that failed to build (cycles, errors): references to them add no second issue. */
  readonly isBroken: (name: string) => boolean;
}

export interface FieldBuildContext {
  readonly types: CustomTypeLookup;
  readonly issues: Issue[];
}

export interface BuiltField {
  readonly schema: JSONSchemaProps | undefined;
  readonly required: boolean;
}

/** Bound on YAML mapping nesting, so a hostile document cannot exhaust the stack. */
export const MAX_OBJECT_NESTING = 64;

export const isPlainMap = (value: unknown): value is Readonly<Record<string, unknown>> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

export function buildField(value: unknown, ctx: FieldBuildContext, path: IssuePath, depth = 0): BuiltField {
  if (typeof value === "string") return buildTypeString(value, ctx, path);
  if (isPlainMap(value)) return { schema: buildObject(value, ctx, path, depth + 1), required: false };
  report(
    ctx,
    path,
    SCHEMA_ISSUE_CODES.unexpectedValue,
    `unexpected type: a field must be a type string or a mapping, got ${describeValue(value)}`,
  );
  return { schema: undefined, required: false };
}

/** A nested mapping: sorted properties, sorted `required`, and kro's `default: {}` propagation. */
export function buildObject(
  fields: Readonly<Record<string, unknown>>,
  ctx: FieldBuildContext,
  path: IssuePath,
  depth = 0,
): JSONSchemaProps | undefined {
  if (depth > MAX_OBJECT_NESTING) {
    report(ctx, path, SCHEMA_ISSUE_CODES.nestingTooDeep, `objects nest deeper than ${MAX_OBJECT_NESTING} levels`);
    return undefined;
  }
  const properties: [string, JSONSchemaProps][] = [];
  const required: string[] = [];
  let complete = true;
  for (const name of Object.keys(fields).sort()) {
    const field = buildField(fields[name], ctx, [...path, name], depth);
    if (field.schema === undefined) complete = false;
    else properties.push([name, field.schema]);
    if (field.required) required.push(name);
  }
  if (!complete) return undefined;
  const schema: JSONSchemaProps = { type: "object" };
  // Object.fromEntries defines own properties, so a field called "__proto__" stays a field.
  if (properties.length > 0) schema.properties = Object.fromEntries(properties);
  if (required.length > 0) schema.required = required;
  // Without this, nested defaults would not materialise when the parent object is omitted; kro
  // only does it when nothing is required, since `{}` would then fail validation.
  else if (properties.some(([, child]) => child.default !== undefined)) schema.default = {};
  return schema;
}

function buildTypeString(text: string, ctx: FieldBuildContext, path: IssuePath): BuiltField {
  const bar = text.indexOf("|");
  const typeText = bar < 0 ? text : text.slice(0, bar);
  const parsed = parseTypeExpression(typeText);
  if (parsed.error !== undefined) {
    report(ctx, path, parsed.error.code, parsed.error.message);
    return { schema: undefined, required: false };
  }
  const resolved = resolveType(parsed.type, ctx, path);
  if (resolved === undefined) return { schema: undefined, required: false };
  const { schema, aliasRequired } = resolved;
  if (bar < 0) return { schema, required: aliasRequired };

  const lexed = lexMarkers(text.slice(bar + 1));
  if (lexed.error !== undefined) {
    report(ctx, path, lexed.error.code, lexed.error.message);
    return { schema: undefined, required: false };
  }
  const before = ctx.issues.length;
  const outcome = applyMarkers(lexed.markers, parsed.type, schema, (code, message, severity = "error") => {
    report(ctx, path, code, message, severity);
  });
  const failed = ctx.issues.slice(before).some((i) => i.severity === "error");
  return { schema: failed ? undefined : schema, required: outcome.required || aliasRequired };
}

/** A fresh (mutable) schema for a type expression; custom types are deep-copied, never shared. */
function resolveType(
  type: TypeExpression,
  ctx: FieldBuildContext,
  path: IssuePath,
): { schema: JSONSchemaProps; aliasRequired: boolean } | undefined {
  const wrappers: ("array" | "map")[] = [];
  let current = type;
  while (current.kind === "array" || current.kind === "map") {
    wrappers.push(current.kind);
    current = current.kind === "array" ? current.items : current.values;
  }
  let schema: JSONSchemaProps;
  let aliasRequired = false;
  switch (current.kind) {
    case "atomic":
      schema = { type: current.name === "float" ? "number" : current.name };
      break;
    case "object":
      schema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
      break;
    case "custom": {
      const custom = ctx.types.get(current.name);
      if (custom === undefined) {
        if (!ctx.types.isBroken(current.name))
          report(ctx, path, SCHEMA_ISSUE_CODES.unknownType, `unknown type: ${current.name}`);
        return undefined;
      }
      schema = structuredClone(custom.schema);
      // required=true on an alias applies where the alias itself is the field's type.
      aliasRequired = wrappers.length === 0 && custom.required;
      break;
    }
  }
  for (let i = wrappers.length - 1; i >= 0; i--) {
    schema =
      wrappers[i] === "array" ? { type: "array", items: schema } : { type: "object", additionalProperties: schema };
  }
  return { schema, aliasRequired };
}

function report(
  ctx: FieldBuildContext,
  path: IssuePath,
  code: SchemaIssueCode,
  message: string,
  severity: "error" | "warning" = "error",
): void {
  ctx.issues.push(severity === "error" ? error(code, path, message) : warning(code, path, message));
}
