// schema: OpenAPI types, SimpleSchema → OpenAPI, the CRD an RGD implies, and CRD breaking-change checks.
// Pure and synchronous: no I/O, no cluster, no CEL (status types arrive already inferred from expr/graph).
export type {
  CrdConversion,
  CrdNames,
  CrdScope,
  CrdVersion,
  WebhookClientConfig,
  CustomResourceDefinition,
  JSONSchemaProps,
  JsonValue,
  ListType,
  PrinterColumn,
  ValidationRule,
} from "./openapi-types.js";
export { CRD_SCOPES, LIST_TYPES } from "./openapi-types.js";
export { SCHEMA_ISSUE_CODES, type SchemaIssueCode } from "./issue-codes.js";
export {
  ATOMIC_TYPES,
  MAX_TYPE_NESTING,
  parseTypeExpression,
  type AtomicType,
  type TypeExpression,
} from "./type-expression.js";
export { lexMarkers, type RawMarker } from "./marker-lexer.js";
export { IMMUTABLE_RULE, MARKER_KEYS, VALIDATION_MESSAGE, type MarkerKey } from "./markers.js";
export type { CustomType } from "./field-schema.js";
export { resolveCustomTypes, type CustomTypeRegistry, type CustomTypesResult } from "./custom-types.js";
export { parseSimpleSchema, type SimpleSchemaOptions, type SimpleSchemaResult } from "./simple-schema.js";
export { canonicalizeSchema } from "./canonical-schema.js";
export { pluralize } from "./pluralize.js";
export { crdNameFor, crdNamesFor, DEFAULT_GROUP, type CrdNameOptions } from "./crd-names.js";
export { DEFAULT_PRINTER_COLUMNS, printerColumnsFor } from "./printer-columns.js";
export {
  buildStatusSchema,
  CONDITIONS_SCHEMA,
  keepsStatusRecord,
  STATE_SCHEMA,
  STATUS_RECORD_SCHEMA,
  UNKNOWN_TYPE_SCHEMA,
  type InferredStatusField,
  type StatusSchemaResult,
} from "./status-schema.js";
export { synthesizeCrd, type CrdSynthesisInput, type CrdSynthesisResult } from "./crd-builder.js";
export {
  classifyCrdUpdate,
  diffCrdSchemas,
  formatChangePath,
  SCHEMA_CHANGE_KINDS,
  summarizeChanges,
  type CrdSchemaSource,
  type CrdUpdateClassification,
  type SchemaChange,
  type SchemaChangeKind,
} from "./breaking-changes.js";
export {
  checkGoRegexp,
  compileGoRegexpCached,
  GoRegexp,
  GoRegexpSyntaxError,
  type GoRegexpMatch,
} from "./go-regexp.js";
export { sampleInstance, yamlScalar, type SampleInstance, type SampleOptions } from "./sample-instance.js";
