/**
 * Status projection for the CEL dialect (kro §6.10, §6.11): user fields from `spec.schema.status`
 * (a field whose expression is pending is left out), and author conditions built with
 * runtime.newCondition. Both see the whole instance as `schema` and every observed object,
 * without readiness gating.
 */
import { formatPath } from "../../diag/index.js";
import { extractExpressions, isDataPending, type OpenApiSchema } from "../../expr/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import type { EvaluationScope, ProjectedStatus } from "../dialect.js";
import { isRecord } from "../identity.js";
import type { KubeJson } from "../types.js";
import { missingPathOf } from "./classify.js";
import type { Programs } from "./programs.js";
import { instanceSchema, scopeVariables } from "./variables.js";

type Condition = ProjectedStatus["conditions"][number];

function statusSchema(graph: CompiledGraph): OpenApiSchema | undefined {
  return instanceSchema(graph)?.properties?.status;
}

/** Writes `value` at `path`, making arrays where the status schema says so. */
function setStatusField(
  root: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
  schema: OpenApiSchema | undefined,
): void {
  let cursor: Record<string, unknown> | unknown[] = root;
  let node = schema;
  path.forEach((segment, i) => {
    const childSchema = node?.type === "array" ? node.items : node?.properties?.[segment];
    const key = Array.isArray(cursor) ? Number(segment) : segment;
    if (i === path.length - 1) {
      (cursor as Record<string | number, unknown>)[key] = value;
      return;
    }
    const existing = (cursor as Record<string | number, unknown>)[key];
    const next = existing ?? (childSchema?.type === "array" ? [] : {});
    (cursor as Record<string | number, unknown>)[key] = next;
    cursor = next as Record<string, unknown> | unknown[];
    node = childSchema;
  });
}

/** Arrays with holes (a pending element) are compacted: only resolved values are written. */
function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(compact);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compact(v)]));
  return value;
}

/** The literal `type: "X"` of a runtime.newCondition call, so a pending condition keeps its old value. */
function literalTypes(expression: string): string[] {
  return [...expression.matchAll(/["']?type["']?\s*:\s*(?:"([^"]+)"|'([^']+)')/g)]
    .map((m) => m[1] ?? m[2] ?? "")
    .filter((t) => t !== "");
}

function toConditions(value: unknown): Condition[] | string {
  const list = Array.isArray(value) ? value : [value];
  const out: Condition[] = [];
  for (const item of list) {
    if (!isRecord(item) || typeof item.type !== "string" || item.type === "" || typeof item.status !== "string")
      return `must return runtime.newCondition(...) or a list of them, got ${JSON.stringify(item)}`;
    out.push({
      type: item.type,
      status: item.status,
      ...(typeof item.reason === "string" && item.reason !== "" ? { reason: item.reason } : {}),
      ...(typeof item.message === "string" && item.message !== "" ? { message: item.message } : {}),
    });
  }
  return out;
}

export function projectCelStatus(graph: CompiledGraph, programs: Programs, scope: EvaluationScope): ProjectedStatus {
  const variables = scopeVariables(graph, scope, { fullInstance: true });
  const fields: KubeJson = {};
  const errors: string[] = [];
  const schema = statusSchema(graph);
  const pendingFields: { path: string; message: string; missingPath?: string }[] = [];
  for (const field of graph.status) {
    // state and conditions belong to kro; a projection of the same name is ignored (§6.10).
    if (field.path[0] === "state" || field.path[0] === "conditions") continue;
    try {
      const result = programs.template(field.text).evaluate(variables, scope.cost);
      if (!result.omitted) setStatusField(fields, field.path, result.value, schema);
    } catch (e) {
      const where = formatPath(["status", ...field.path]);
      if (!isDataPending(e)) {
        errors.push(`${where}: ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      const missingPath = missingPathOf(e.expression, e.range?.end);
      pendingFields.push({ path: where, message: e.message, ...(missingPath === undefined ? {} : { missingPath }) });
    }
  }

  const conditions: Condition[] = [];
  const pendingConditionTypes: string[] = [];
  const seen = new Set<string>();
  graph.conditions.forEach((text, i) => {
    const where = formatPath(["spec", "schema", "status", "conditions", i]);
    const [segment] = extractExpressions(text).segments;
    const source = segment?.kind === "expression" ? segment.source : text;
    let value: unknown;
    try {
      const result = programs.expression(source).evaluateJson(variables, scope.cost);
      value = result.omitted ? null : result.value;
    } catch (e) {
      if (isDataPending(e)) pendingConditionTypes.push(...literalTypes(source));
      else errors.push(`${where}: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    const converted = toConditions(value);
    if (typeof converted === "string") {
      errors.push(`${where}: ${converted}`);
      return;
    }
    for (const condition of converted) {
      if (seen.has(condition.type)) {
        errors.push(`${where}: duplicate condition type "${condition.type}" (dropped)`);
        continue;
      }
      seen.add(condition.type);
      conditions.push(condition);
    }
  });
  return {
    fields: compact(fields) as KubeJson,
    conditions,
    replacesBuiltins: graph.conditions.length > 0,
    errors,
    pendingConditionTypes,
    pendingFields,
  };
}
