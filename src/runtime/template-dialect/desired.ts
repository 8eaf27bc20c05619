/**
 * The desired object of one child (docs/reference/seed-dialect.md §3, §6): the body rendered from
 * `template` and parsed as YAML, merged with apiVersion, kind, metadata.name (from nameTemplate)
 * and the parent's namespace, plus the label `app: <parent name>` unless the template sets `app`.
 */
import { LABELS, labelValue, loadYaml } from "../../api/index.js";
import type { CompiledNode } from "../../graph/index.js";
import type { Entropy, RenderDeadline } from "../../template/index.js";
import type { Outcome } from "../dialect.js";
import type { KubeJson } from "../types.js";
import type { TemplateData } from "./data.js";
import { runTemplate } from "./run.js";
import type { ChildTemplates } from "./templates.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses rendered text as one YAML map; errors name the line of the rendered text and show it. */
export function parseRenderedBody(owner: string, rendered: string): Outcome<KubeJson> {
  const loaded = loadYaml(owner, rendered);
  const [problem] = loaded.problems;
  if (problem !== undefined) {
    const line = problem.position?.line;
    const where = line === undefined ? "" : ` at line ${line} of the rendered template`;
    // Errors at the end of the text (an unclosed bracket) point at a blank line: show the last
    // line with content before it instead.
    const lines = rendered.split("\n");
    let shownLine = line ?? 0;
    while (shownLine > 1 && (lines[shownLine - 1] ?? "").trim() === "") shownLine--;
    const source = lines[shownLine - 1];
    const shown = source === undefined || line === undefined ? "" : `\n  ${shownLine} | ${source}`;
    return {
      ok: false,
      error: `${owner}: the rendered template is not valid YAML${where}: ${problem.issue.message}${shown}`,
    };
  }
  if (loaded.documents.length > 1)
    return {
      ok: false,
      error: `${owner}: the rendered template holds ${loaded.documents.length} YAML documents; a child is one object`,
    };
  const [document] = loaded.documents;
  // loadYaml drops empty documents: no document (or a `null` one) is an empty body.
  const body: unknown = document === undefined ? null : document.value;
  if (body === null) return { ok: true, value: {} };
  if (!isObject(body))
    return {
      ok: false,
      error: `${owner}: the rendered template must be a YAML map (the object's fields), got ${Array.isArray(body) ? "a list" : typeof body}`,
    };
  return { ok: true, value: body };
}

function stringMap(owner: string, value: unknown, field: string): Outcome<Record<string, unknown>> {
  if (value === undefined || value === null) return { ok: true, value: {} };
  if (!isObject(value)) return { ok: false, error: `${owner}: metadata.${field} must be a map` };
  return { ok: true, value };
}

export function renderChild(
  node: CompiledNode,
  templates: ChildTemplates,
  data: TemplateData,
  entropy?: Entropy,
  deadline?: RenderDeadline,
): Outcome<KubeJson> {
  const owner = `child "${node.id}"`;
  const nameOut = runTemplate(owner, "nameTemplate", templates.name, data, entropy, deadline);
  if (!nameOut.ok) return nameOut;
  const name = nameOut.value.trim();
  if (name === "" || name.includes("<no value>"))
    return {
      ok: false,
      error: `${owner}: nameTemplate rendered ${JSON.stringify(nameOut.value)}, which is no object name`,
    };
  const bodyOut = runTemplate(owner, "template", templates.body, data, entropy, deadline);
  if (!bodyOut.ok) return bodyOut;
  const parsed = parseRenderedBody(owner, bodyOut.value);
  if (!parsed.ok) return parsed;
  const { apiVersion, kind, metadata = {}, ...rest } = parsed.value;
  for (const [field, value, expected] of [
    ["apiVersion", apiVersion, node.apiVersion],
    ["kind", kind, node.kind],
  ] as const) {
    if (value !== undefined && value !== expected)
      return {
        ok: false,
        error: `${owner}: the template sets ${field} ${JSON.stringify(value)}, but the child is declared as ${expected}; ${field} comes from the childResources entry`,
      };
  }
  if (!isObject(metadata)) return { ok: false, error: `${owner}: metadata in the rendered template must be a map` };
  const labels = stringMap(owner, metadata.labels, "labels");
  if (!labels.ok) return labels;
  const annotations = stringMap(owner, metadata.annotations, "annotations");
  if (!annotations.ok) return annotations;
  const parentMeta = isObject(data.parent.metadata) ? data.parent.metadata : {};
  const parentName = typeof parentMeta.name === "string" ? parentMeta.name : "";
  const namespace =
    node.namespaced !== false && typeof parentMeta.namespace === "string" ? parentMeta.namespace : undefined;
  const { name: _name, namespace: _namespace, labels: _labels, annotations: _annotations, ...otherMeta } = metadata;
  const outLabels =
    LABELS.app in labels.value ? labels.value : { [LABELS.app]: labelValue(parentName), ...labels.value };
  const outMeta: KubeJson = {
    ...otherMeta,
    name,
    ...(namespace === undefined ? {} : { namespace }),
    labels: outLabels,
    ...(Object.keys(annotations.value).length > 0 ? { annotations: annotations.value } : {}),
  };
  return { ok: true, value: { apiVersion: node.apiVersion, kind: node.kind, metadata: outMeta, ...rest } };
}
