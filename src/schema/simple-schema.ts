/**
 * The entry point of SimpleSchema: `spec.schema.spec` (+ `spec.schema.types`) → the OpenAPI
 * schema of the instance spec, with every problem as an Issue at its document path.
 */
import { error, hasErrors, type Issue, type IssuePath } from "../diag/index.js";
import { canonicalizeSchema } from "./canonical-schema.js";
import {
  DEFAULT_TYPES_PATH,
  EMPTY_TYPE_REGISTRY,
  resolveCustomTypes,
  type CustomTypeRegistry,
} from "./custom-types.js";
import { buildObject, describeValue, isPlainMap } from "./field-schema.js";
import { SCHEMA_ISSUE_CODES } from "./issue-codes.js";
import type { JSONSchemaProps } from "./openapi-types.js";

export const DEFAULT_SPEC_PATH: IssuePath = ["spec", "schema", "spec"];

export interface SimpleSchemaOptions {
  /** `spec.schema.types` as written (raw), or an already resolved registry. */
  readonly types?: unknown;
  /** Where `spec` sits in the document; default `spec.schema.spec`. */
  readonly path?: IssuePath;
  /** Where `types` sits in the document; default `spec.schema.types`. */
  readonly typesPath?: IssuePath;
}

export interface SimpleSchemaResult {
  /** The spec schema, or undefined when any error was found. */
  readonly schema: JSONSchemaProps | undefined;
  readonly issues: readonly Issue[];
  /** The resolved custom types (useful to the CLI and for error messages). */
  readonly types: CustomTypeRegistry;
}

export function parseSimpleSchema(spec: unknown, options: SimpleSchemaOptions = {}): SimpleSchemaResult {
  const path = options.path ?? DEFAULT_SPEC_PATH;
  const resolved = isRegistry(options.types)
    ? { registry: options.types, issues: [] }
    : resolveCustomTypes(options.types, options.typesPath ?? DEFAULT_TYPES_PATH);
  const issues: Issue[] = [...resolved.issues];
  let schema: JSONSchemaProps | undefined;
  if (spec === undefined || spec === null) {
    schema = { type: "object" };
  } else if (isPlainMap(spec)) {
    schema = buildObject(spec, { types: resolved.registry, issues }, path);
  } else {
    issues.push(
      error(
        SCHEMA_ISSUE_CODES.unexpectedValue,
        path,
        `unexpected type: spec must be a mapping of fields, got ${describeValue(spec)}`,
      ),
    );
  }
  const ok = schema !== undefined && !hasErrors(issues);
  return {
    schema: ok && schema !== undefined ? canonicalizeSchema(schema) : undefined,
    issues,
    types: resolved.registry,
  };
}

function isRegistry(value: unknown): value is CustomTypeRegistry {
  // A raw types mapping may well have a type called "get"; only real functions mark a registry.
  return (
    value === EMPTY_TYPE_REGISTRY ||
    (typeof value === "object" &&
      value !== null &&
      typeof (value as { isBroken?: unknown }).isBroken === "function" &&
      typeof (value as { get?: unknown }).get === "function")
  );
}
