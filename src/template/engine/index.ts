/**
 * Go's text/template itself: lexer, parser, parse tree, executor, the built-in functions, the
 * function table a template sees (built-ins, then Sprig, then the caller's), template sets and
 * static checks of a parsed template. Builds on go/ and sprig/; it may not import helm/.
 */
export { isTemplateError, TemplateError, type TemplateErrorKind } from "./errors.js";
export { ExecContext, execute, type Budget, type MissingKey } from "./executor.js";
export { functionTable, mayUseEntropy, withEntropy } from "./funcs-all.js";
export { parseTrees, type TreeSet } from "./parser.js";
export { rootFieldReferences, type FieldReference } from "./references.js";
export { invalidRegexLiterals, type RegexLiteralProblem } from "./regex-literals.js";
export {
  addTemplate,
  cloneTemplateSet,
  createTemplateSet,
  executeTemplate,
  executeTree,
  parseTemplateSet,
  type SetExecuteOptions,
  type SetParseOptions,
  type TemplateSet,
  type TemplateSource,
} from "./template-set.js";
