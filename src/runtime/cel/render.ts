/**
 * Rendering one template (or externalRef) with CEL: a copy of the template with every `${…}`
 * field replaced by its value. The first pending field makes the whole object pending; a real
 * error anywhere fails it. `omit()` results remove their key or list element.
 */
import { formatPath } from "../../diag/index.js";
import type { CostOptions } from "../../expr/index.js";
import type { CompiledNode } from "../../graph/index.js";
import type { Outcome } from "../dialect.js";
import type { KubeJson } from "../types.js";
import { failure } from "./classify.js";
import type { Programs } from "./programs.js";

type Path = readonly (string | number)[];

export function fieldLocation(node: CompiledNode, path: Path): string {
  const body = node.type === "external" || node.type === "externalCollection" ? "externalRef" : "template";
  return formatPath(["spec", "resources", node.index, body, ...path]);
}

function setAt(root: unknown, path: Path, value: unknown): void {
  let cursor = root as Record<string | number, unknown>;
  for (const segment of path.slice(0, -1)) cursor = cursor[segment] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (last !== undefined) cursor[last] = value;
}

/** Removes omitted keys, then omitted list elements from the highest index down. */
function removeAll(root: unknown, paths: readonly Path[]): void {
  const sorted = [...paths].sort((a, b) => {
    const x = a[a.length - 1];
    const y = b[b.length - 1];
    return typeof x === "number" && typeof y === "number" ? y - x : 0;
  });
  for (const path of sorted) {
    let cursor = root as Record<string | number, unknown>;
    for (const segment of path.slice(0, -1)) cursor = cursor[segment] as Record<string | number, unknown>;
    const last = path[path.length - 1];
    if (last === undefined) continue;
    if (Array.isArray(cursor) && typeof last === "number") cursor.splice(last, 1);
    else Reflect.deleteProperty(cursor, last);
  }
}

export function renderTemplate(
  node: CompiledNode,
  programs: Programs,
  variables: Readonly<Record<string, unknown>>,
  cost?: CostOptions,
): Outcome<KubeJson> {
  const copy = structuredClone(node.template) as KubeJson;
  const omitted: Path[] = [];
  for (const field of node.fields) {
    let result;
    try {
      result = programs.field(field).evaluate(variables, cost);
    } catch (e) {
      return failure(e, fieldLocation(node, field.path));
    }
    if (result.omitted) omitted.push(field.path);
    else setAt(copy, field.path, result.value);
  }
  removeAll(copy, omitted);
  return { ok: true, value: copy };
}
