/**
 * Parsed templates of a compiled template-dialect graph, cached per frozen node / mapping so
 * each Go template is parsed once per graph, not once per reconcile. The compiler already parsed
 * every one of them, so a parse failure here means the graph was not compiled by compileRgd.
 */
import { templateName, type CompiledNode, type StatusMapping } from "../../graph/index.js";
import { fieldReferences, parseTemplate, type Template } from "../../template/index.js";

export interface ChildTemplates {
  readonly name: Template;
  readonly body: Template;
  readonly condition: Template | undefined;
  /** Child ids the condition reads: inclusion waits only for those, not the body's. */
  readonly conditionChildren: readonly string[];
  readonly readyWhen: readonly Template[];
}

const children = new WeakMap<CompiledNode, ChildTemplates>();
const mappingNames = new WeakMap<StatusMapping, Template>();

export function childTemplates(node: CompiledNode): ChildTemplates {
  const cached = children.get(node);
  if (cached) return cached;
  const source = node.templateSource;
  if (source === undefined || typeof node.template !== "string")
    throw new Error(`internal: node "${node.id}" is not a template-dialect child`);
  const [conditionText] = node.includeWhen;
  const condition =
    conditionText === undefined ? undefined : parseTemplate(templateName(node.id, "condition"), conditionText);
  const parsed: ChildTemplates = {
    name: parseTemplate(templateName(node.id, "nameTemplate"), source.nameTemplate),
    body: parseTemplate(templateName(node.id, "template"), node.template),
    condition,
    conditionChildren:
      condition === undefined ? [] : [...new Set(fieldReferences(condition, "children").map((r) => r.name))],
    readyWhen: node.readyWhen.map((text, i) => parseTemplate(templateName(node.id, `readyWhen[${i}]`), text)),
  };
  children.set(node, parsed);
  return parsed;
}

/** The childResource.name template of a status mapping; undefined when the kind alone selects. */
export function mappingNameTemplate(mapping: StatusMapping): Template | undefined {
  const text = mapping.childResource.name;
  if (text === undefined) return undefined;
  const cached = mappingNames.get(mapping);
  if (cached) return cached;
  const parsed = parseTemplate(`statusMappings[${mapping.index}].name`, text);
  mappingNames.set(mapping, parsed);
  return parsed;
}
