// graph/cel: compileRgd for the CEL dialect (`spec.schema` + `spec.resources`), phase by phase — one
// resource's shape and literals, the schema's types, forEach, conditions, where expressions may
// read, the target cluster. It builds on the shared core at graph's root and on versions/; it knows
// neither the template dialect nor Helm.
export { compileCelRgd, type CompileResult } from "./compile-cel.js";
export { schemaAt } from "./compile-types.js";
export { checkTemplateLiterals } from "./template-literals.js";
