/**
 * The type half of a SimpleSchema type string (`[]map[string]Person`), parsed into a small tree.
 * Resolution against custom types happens later (custom-types.ts / field-schema.ts) so this stays
 * a pure syntax step that the dependency scan of custom types can reuse.
 */
import { SCHEMA_ISSUE_CODES, type SchemaIssueCode } from "./issue-codes.js";

export const ATOMIC_TYPES = ["string", "integer", "boolean", "float"] as const;
export type AtomicType = (typeof ATOMIC_TYPES)[number];

/** Names a custom type may not take: they always mean the built-in. */
export const BUILTIN_TYPE_NAMES: readonly string[] = [...ATOMIC_TYPES, "object"];

/** kro caps `[]`/`map[...]` nesting so a hostile type string cannot recurse without bound. */
export const MAX_TYPE_NESTING = 16;

export type TypeExpression =
  | { readonly kind: "atomic"; readonly name: AtomicType }
  | { readonly kind: "object" }
  | { readonly kind: "array"; readonly items: TypeExpression }
  | { readonly kind: "map"; readonly values: TypeExpression }
  | { readonly kind: "custom"; readonly name: string };

export interface TypeSyntaxError {
  readonly code: SchemaIssueCode;
  readonly message: string;
}

export type TypeParseResult =
  | { readonly type: TypeExpression; readonly error?: undefined }
  | { readonly type?: undefined; readonly error: TypeSyntaxError };

const ARRAY_PREFIX = "[]";
const MAP_PREFIX = "map[";

export function parseTypeExpression(text: string): TypeParseResult {
  const trimmed = text.trim();
  if (trimmed === "") return fail(SCHEMA_ISSUE_CODES.emptyType, "missing type before '|'");
  // Unwrap prefixes iteratively (not recursively) and rebuild the tree from the inside out.
  const wrappers: ("array" | "map")[] = [];
  let rest = trimmed;
  for (;;) {
    if (rest.startsWith(ARRAY_PREFIX)) {
      wrappers.push("array");
      rest = rest.slice(ARRAY_PREFIX.length);
    } else if (rest.startsWith(MAP_PREFIX)) {
      const close = rest.indexOf("]");
      if (close < 0) return fail(SCHEMA_ISSUE_CODES.unknownType, `unknown type: ${trimmed} (unclosed map key)`);
      const key = rest.slice(MAP_PREFIX.length, close);
      if (key !== "string")
        return fail(SCHEMA_ISSUE_CODES.mapKeyNotString, `map key must be string, got "${key}" in ${trimmed}`);
      wrappers.push("map");
      rest = rest.slice(close + 1);
    } else {
      break;
    }
    if (wrappers.length > MAX_TYPE_NESTING) {
      return fail(
        SCHEMA_ISSUE_CODES.nestingTooDeep,
        `type ${trimmed} nests arrays/maps deeper than ${MAX_TYPE_NESTING} levels`,
      );
    }
    if (rest === "") {
      const what = wrappers[wrappers.length - 1] === "map" ? "map value" : "array element";
      return fail(SCHEMA_ISSUE_CODES.missingElementType, `missing ${what} type in ${trimmed}`);
    }
  }
  let type: TypeExpression = baseType(rest);
  for (let i = wrappers.length - 1; i >= 0; i--) {
    type = wrappers[i] === "array" ? { kind: "array", items: type } : { kind: "map", values: type };
  }
  return { type };
}

function baseType(name: string): TypeExpression {
  if (name === "object") return { kind: "object" };
  const atomic = ATOMIC_TYPES.find((t) => t === name);
  return atomic === undefined ? { kind: "custom", name } : { kind: "atomic", name: atomic };
}

/** The custom type a type expression ultimately names, if any (`[]map[string]Person` → Person). */
export function customTypeName(type: TypeExpression): string | undefined {
  let current = type;
  for (;;) {
    if (current.kind === "array") current = current.items;
    else if (current.kind === "map") current = current.values;
    else return current.kind === "custom" ? current.name : undefined;
  }
}

function fail(code: SchemaIssueCode, message: string): TypeParseResult {
  return { error: { code, message } };
}
