// graph/template-dialect: compileRgd for the template dialect (`spec.resourceKind` +
// `spec.childResources` as Go templates, `spec.statusMappings`) — children, parent checks, status
// mappings, template parsing. It builds on the shared core, helm/ (the chart context) and the CEL
// dialect's result type; the CEL dialect does not know it.
export { compileTemplateRgd, groupKind } from "./compile-template.js";
export { defaultChildId } from "./template-child.js";
export { templateName } from "./template-parse.js";
