// schema: OpenAPI types, SimpleSchema → OpenAPI, the CRD an RGD implies, and CRD breaking-change checks.
// Pure and synchronous: no I/O, no cluster, no CEL (status types arrive already inferred from expr/graph).
export type { CrdNames, CrdScope, CrdVersion, CustomResourceDefinition, JSONSchemaProps, JsonValue, ListType, PrinterColumn, ValidationRule } from "./openapi-types.js";
export { CRD_SCOPES, LIST_TYPES } from "./openapi-types.js";
export { SCHEMA_ISSUE_CODES, type SchemaIssueCode } from "./issue-codes.js";
export { ATOMIC_TYPES, MAX_TYPE_NESTING, parseTypeExpression, type AtomicType, type TypeExpression } from "./type-expression.js";
export { lexMarkers, type RawMarker } from "./marker-lexer.js";
export { IMMUTABLE_RULE, MARKER_KEYS, VALIDATION_MESSAGE, type MarkerKey } from "./markers.js";
export type { CustomType } from "./field-schema.js";
export { resolveCustomTypes, type CustomTypeRegistry, type CustomTypesResult } from "./custom-types.js";
export { parseSimpleSchema, type SimpleSchemaOptions, type SimpleSchemaResult } from "./simple-schema.js";
export { canonicalizeSchema } from "./canonical-schema.js";
