// api: wire types of both RGD dialects, every kro.run constant, the RGD's own CRD, and the YAML
// loader that keeps source positions. No behaviour beyond shape: validation lives in graph.
export * from "./constants.js";
export {
  DIALECTS,
  type ChildResource,
  type Dialect,
  type ExternalRef,
  type ObjectMeta,
  type ResourceGraphDefinition,
  type ResourceKindRef,
  type RgdResource,
  type RgdSchema,
  type RgdSpec,
  type RolloutSpec,
  type RolloutWaveSpec,
  type StatusMapping,
} from "./rgd-types.js";
export {
  DURATION_PATTERN,
  RGD_SPEC_SCHEMA,
  rgdCustomResourceDefinition,
  type CrdManifest,
  type JSONSchemaProps,
} from "./rgd-crd.js";
export { rgdJsonSchema } from "./rgd-json-schema.js";
export {
  graphRevisionCustomResourceDefinition,
  type GraphRevision,
  type GraphRevisionSnapshot,
  type OwnerReference,
} from "./graph-revision.js";
export {
  formatLocated,
  loadYaml,
  loadYamlBytes,
  tooLarge as oversizedYamlFile,
  toYaml,
  type LoadedFile,
  type LocatedIssue,
  type SourceDocument,
  type SourcePosition,
} from "./yaml-source.js";
export type { SourceSpan, SourceString } from "./yaml-spans.js";
export { YAML_ISSUE_CODES, YAML_LIMITS } from "./yaml-limits.js";
export { GO_YAML_READ, GO_YAML_WRITE } from "./go-yaml-schema.js";
export { applyGoJsonRules } from "./go-yaml-json.js";
export { goFloatKey, needsQuotes, resolveGoScalar, type GoScalar, type GoScalarKind } from "./go-yaml-scalars.js";
export { yamlKeyComments } from "./yaml-comments.js";
export { labelMatches, labelValue, MAX_LABEL_VALUE_LENGTH } from "./label-value.js";
export { compareCodeUnits } from "./text-order.js";
export { unquotedColonExpression } from "./yaml-syntax-errors.js";
