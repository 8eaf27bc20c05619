/**
 * The data a template of the dialect sees (docs/reference/seed-dialect.md §6): `.parent` is the
 * instance without its status, `.children.<id>` the observed object of each child resolved so far,
 * and in readyWhen `.self` the observed child itself.
 */
import type { KubeJson } from "../types.js";
import type { EvaluationScope } from "../dialect.js";

export interface TemplateData {
  readonly parent: KubeJson;
  readonly children: Readonly<Record<string, KubeJson>>;
  readonly self?: KubeJson;
}

export function templateData(scope: EvaluationScope, self?: KubeJson): TemplateData {
  const { status: _status, ...parent } = scope.instance;
  const children: Record<string, KubeJson> = {};
  for (const [id, objects] of scope.observed) {
    const [first] = objects;
    if (first !== undefined && !scope.excluded.has(id)) children[id] = first;
  }
  return self === undefined ? { parent, children } : { parent, children, self };
}

/** Reads `value` at a path of keys and list indexes; undefined when any step is missing. */
export function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let node = value;
  for (const step of path) {
    if (typeof step === "number") node = Array.isArray(node) ? node[step] : undefined;
    else
      node =
        typeof node === "object" && node !== null && !Array.isArray(node)
          ? (node as Record<string, unknown>)[step]
          : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}
