// graph: the compile core — both dialects → one immutable CompiledGraph, CRD synthesis, pictures.
// No I/O of any kind: schemas of child kinds arrive through resolver ports passed in.
export {
  applyWaves,
  deletionWaves,
  findCycle,
  formatCycle,
  topologicalOrder,
  type DagInput,
  type TopologicalResult,
} from "./dag.js";
export {
  MAX_COLLECTION_DIMENSIONS,
  MAX_COLLECTION_SIZE,
  RESERVED_IDS,
  checkIdentifier,
  checkKind,
  checkUniqueIds,
} from "./naming.js";
export { compileRgd, type CompileRgdOptions } from "./compile.js";
export type { CompileResult } from "./cel/index.js";
export { childFieldMasks } from "./child-field-masks.js";
export { feedingNodes } from "./feeding-nodes.js";
export {
  coversMask,
  describeMask,
  maskOfPath,
  mergeMasks,
  projectJson,
  templateMask,
  type FieldMask,
} from "./field-mask.js";
export {
  NODE_TYPES,
  deepFreeze,
  type CelCompiledGraph,
  type CompiledGraph,
  type CompiledNode,
  type ConditionMapping,
  type FieldMapping,
  type ForEachDimension,
  type PropagationRule,
  type InstanceApi,
  type InstanceKind,
  type NodeType,
  type PathStep,
  type StatusField,
  type StatusMapping,
  type TemplateCompiledGraph,
  type TemplateNodeSource,
} from "./compiled-graph.js";
export { attachToCrd, crdDefines, type AttachResult } from "./attach-crd.js";
export { formatDotPath, parseDotPath } from "./dot-path.js";
export { defaultChildId } from "./template-dialect/index.js";
export { templateName } from "./template-dialect/index.js";
export { chartOfTemplate, parseChartTemplate, type HelmChartScope, type HelmContext } from "./helm/index.js";
export { gzipText, MAX_INFLATED_ENTRY_BYTES, MAX_INFLATED_TOTAL_BYTES } from "./helm/index.js";
export { groupKind } from "./template-dialect/index.js";
export { addLookupEdges, helmLookupSites, isDeclaredLookup, type HelmLookupSite } from "./helm/index.js";
export { HELM_FUNCTION_NAMES } from "./helm/index.js";
export {
  builtinSchemaResolver,
  chainResolvers,
  crdSchemaResolver,
  withCrds,
  dereference,
  type BuiltinSchemaBundle,
  type ResolvedKind,
  type SchemaResolver,
} from "./schema-resolver.js";
export { checkTemplateLiterals, schemaAt } from "./cel/index.js";
export {
  INSTANCE_NODE_ID,
  NODE_STATES,
  PICTURE_FORMATS,
  graphDot,
  graphMermaid,
  graphPicture,
  graphText,
  type NodeState,
  type PictureFormat,
  type PictureGraph,
  type PictureOptions,
} from "./graph-picture.js";
export { schemaBundleFromOpenApi, type OpenApiGroupVersion } from "./openapi-bundle.js";
export {
  DEFAULT_CONTAINMENT,
  classifyMetadataValue,
  constantNamespace,
  containmentPolicyOf,
  delegates,
  delegationAuthorOf,
  rgdAuthorOf,
  containmentWarnings,
  namespaceSource,
  type ContainmentPolicy,
  type NamespaceSource,
} from "./containment.js";
export {
  objectSchema,
  roundTripAnnotation,
  type ApiVersions,
  type CompiledVersion,
  type ConversionDirection,
  type ConversionLiteral,
} from "./versions/index.js";
export {
  compileRolloutPolicy,
  DEFAULT_MAX_UPDATING,
  DEFAULT_READY_WITHIN_MS,
  parseRolloutDuration,
  type LabelRequirement,
  type MaxUpdating,
  type RolloutPolicy,
  type RolloutWave,
  type WaveSelection,
} from "./rollout-policy.js";
