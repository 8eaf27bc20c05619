// expr: kro's `${…}` CEL expressions — extraction, the kro/Kubernetes function libraries on cel-js, typing
// from OpenAPI schemas, cost limits, data-pending errors. The only importer of cel-js; no I/O, no clusters.
export {
  extractExpressions,
  hasExpressions,
  EXTRACT_CODES,
  type Extraction,
  type ExtractOptions,
  type Segment,
} from "./extract.js";
export { findExpressions, type FoundExpressions, type FoundField } from "./find-expressions.js";
export { createKroCelEnvironment, type KroCelEnvironment, type LibraryOptions } from "./environment.js";
export { compileExpression, type CompiledExpression, type EvaluatedJson } from "./compile.js";
export { compileField, type CompiledField } from "./template.js";
export {
  TypedScope,
  checkExpression,
  CHECK_CODES,
  type CheckOptions,
  type CheckResult,
  type DeclaredVariables,
} from "./check.js";
export { celTypeToSchema } from "./cel-types.js";
export { incompatibility, describeSchema } from "./assignable.js";
export { UNBOUNDED_COST_CODE } from "./static-cost.js";
export { CostBudget, DEFAULT_PER_CALL_COST_LIMIT, type CostOptions, type EvaluationDeadline } from "./cost.js";
export { valueConversionSchema } from "./value-schema.js";
export { jsonToCel, celToJson, type JsonValue, type ToCelOptions } from "./values.js";
export type { OpenApiSchema } from "./openapi-schema.js";
export {
  CostLimitError,
  DataPendingError,
  EXPR_ERROR_CODES,
  ExprError,
  ExprEvaluationError,
  ExprParseError,
  ExprTypeError,
  ResultConversionError,
  isCostLimitExceeded,
  isDataPending,
  isExprError,
  type ExprErrorCode,
} from "./errors.js";
export { referencedIdentifiers } from "./references.js";
export { referencedPaths } from "./reference-paths.js";
export {
  BUILTIN_CONDITION_TYPES,
  CONDITION_CODES,
  analyzeAuthorCondition,
  normalizeConditionKeys,
  type AuthorConditionAnalysis,
  type NormalizedCondition,
} from "./author-conditions.js";
export { closestName, didYouMean } from "./did-you-mean.js";
