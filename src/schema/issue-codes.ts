/**
 * Stable machine-readable codes for every problem the schema layer reports. Callers (CLI output,
 * tests, the RGD status message) match on these, never on message text.
 */
export const SCHEMA_ISSUE_CODES = {
  unexpectedValue: "schema.unexpected-type",
  emptyType: "schema.empty-type",
  unknownType: "schema.unknown-type",
  mapKeyNotString: "schema.map-key-not-string",
  missingElementType: "schema.missing-element-type",
  nestingTooDeep: "schema.nesting-too-deep",
  markerSyntax: "schema.marker-syntax",
  multipleSeparators: "schema.multiple-separators",
  unknownMarker: "schema.unknown-marker",
  duplicateMarker: "schema.duplicate-marker",
  invalidMarkerValue: "schema.invalid-marker-value",
  markerNotApplicable: "schema.marker-not-applicable",
  invalidDefault: "schema.invalid-default",
  listTypeConflict: "schema.list-type-conflict",
  typeCycle: "schema.type-cycle",
  typeShadowsBuiltin: "schema.type-shadows-builtin",
  statusPathConflict: "schema.status-path-conflict",
  invalidCrdInput: "schema.invalid-crd-input",
} as const;
export type SchemaIssueCode = (typeof SCHEMA_ISSUE_CODES)[keyof typeof SCHEMA_ISSUE_CODES];
