/**
 * statusMappings → ProjectedStatus (docs/reference/seed-dialect.md §7): select one observed child
 * per mapping, copy its conditions under the mapped type (a missing one is
 * Unknown/ChildConditionMissing) and its fields at dot paths (a missing source leaves the target
 * out, which removes it). Mapped conditions merge over the core's built-ins: `replacesBuiltins` is
 * false.
 */
import type { StatusMapping, TemplateCompiledGraph } from "../../graph/index.js";
import type { EvaluationScope, ProjectedStatus } from "../dialect.js";
import type { KubeJson } from "../types.js";
import { templateData, valueAt, type TemplateData } from "./data.js";
import { runTemplate } from "./run.js";
import { mappingNameTemplate } from "./templates.js";

type MappedCondition = ProjectedStatus["conditions"][number];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The observed child a mapping selects, or why there is none. */
function selectChild(
  mapping: StatusMapping,
  scope: EvaluationScope,
  data: TemplateData,
): { child?: KubeJson; missing?: string; error?: string } {
  const template = mappingNameTemplate(mapping);
  let name: string | undefined;
  if (template !== undefined) {
    const out = runTemplate(
      `statusMappings[${mapping.index}]`,
      "childResource.name",
      template,
      data,
      undefined,
      scope.deadline,
    );
    if (!out.ok) return { error: out.error ?? "childResource.name failed" };
    name = out.value.trim();
  }
  for (const id of mapping.candidates) {
    if (scope.excluded.has(id)) continue;
    for (const object of scope.observed.get(id) ?? []) {
      if (name === undefined || valueAt(object, ["metadata", "name"]) === name) return { child: object };
    }
  }
  const what = `${mapping.childResource.kind}${name === undefined ? "" : ` ${name}`}`;
  return { missing: `${what} does not exist (yet)` };
}

function copyCondition(
  child: KubeJson | undefined,
  type: string,
  mappedType: string,
  missing: string | undefined,
): MappedCondition {
  const conditions = valueAt(child, ["status", "conditions"]);
  const found = Array.isArray(conditions)
    ? conditions.find((c): c is Record<string, unknown> => isObject(c) && c.type === type)
    : undefined;
  if (found === undefined) {
    const kind = typeof child?.kind === "string" ? child.kind : "the child";
    return {
      type: mappedType,
      status: "Unknown",
      reason: "ChildConditionMissing",
      message: missing ?? `${kind} ${String(valueAt(child, ["metadata", "name"]))} has no ${type} condition`,
    };
  }
  return {
    type: mappedType,
    status: typeof found.status === "string" ? found.status : "Unknown",
    ...(typeof found.reason === "string" && found.reason !== "" ? { reason: found.reason } : {}),
    ...(typeof found.message === "string" ? { message: found.message } : {}),
  };
}

function setAt(target: KubeJson, path: readonly string[], value: unknown): void {
  let node = target;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (isObject(next)) node = next;
    else {
      const created: KubeJson = {};
      node[key] = created;
      node = created;
    }
  });
}

export function projectMappedStatus(graph: TemplateCompiledGraph, scope: EvaluationScope): ProjectedStatus {
  const data = templateData(scope);
  const fields: KubeJson = {};
  const conditions: MappedCondition[] = [];
  const errors: string[] = [];
  for (const mapping of graph.statusMappings) {
    const selected = selectChild(mapping, scope, data);
    if (selected.error !== undefined) errors.push(selected.error);
    for (const c of mapping.conditions)
      conditions.push(
        copyCondition(
          selected.child,
          c.type,
          c.mappedType,
          selected.child ? undefined : (selected.error ?? selected.missing),
        ),
      );
    if (selected.child === undefined) continue;
    for (const f of mapping.fieldMappings) {
      const value = valueAt(selected.child, f.child);
      if (value !== undefined) setAt(fields, f.parent, structuredClone(value));
    }
  }
  return { fields, conditions, replacesBuiltins: false, errors };
}
