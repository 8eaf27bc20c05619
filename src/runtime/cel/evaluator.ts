/**
 * The CEL dialect (`${…}`) behind the DialectEvaluator seam: includeWhen, templates, forEach,
 * external references and readyWhen, evaluated against the scope the core hands over.
 */
import { formatPath } from "../../diag/index.js";
import type { CostOptions } from "../../expr/index.js";
import type { CompiledGraph, CompiledNode } from "../../graph/index.js";
import type { DialectEvaluator, EvaluationScope, Outcome } from "../dialect.js";
import { cartesianProduct, type ProductLimits } from "../for-each.js";
import type { KubeJson } from "../types.js";
import { failure } from "./classify.js";
import { programsFor } from "./programs.js";
import { renderTemplate } from "./render.js";
import { projectCelStatus } from "./status.js";
import { scopeVariables, toCel } from "./variables.js";

function location(node: CompiledNode, ...path: (string | number)[]): string {
  return formatPath(["spec", "resources", node.index, ...path]);
}

/** Runs standalone boolean expressions (AND-ed); optional none reads as false. */
function allTrue(
  texts: readonly string[],
  node: CompiledNode,
  what: "includeWhen" | "readyWhen",
  run: (source: string) => unknown,
): Outcome<boolean> {
  for (const [i, text] of texts.entries()) {
    let value: unknown;
    try {
      value = run(text);
    } catch (e) {
      return failure(e, location(node, what, i));
    }
    if (value !== true && value !== false && value !== null)
      return {
        ok: false,
        error: `${location(node, what, i)}: expression ${JSON.stringify(text)} must return a bool, got ${JSON.stringify(value)}`,
      };
    if (value !== true) return { ok: true, value: false };
  }
  return { ok: true, value: true };
}

export function createCelEvaluator(graph: CompiledGraph, limits: ProductLimits = {}): DialectEvaluator {
  const programs = programsFor(graph);
  const evaluateJson = (
    source: string,
    variables: Readonly<Record<string, unknown>>,
    cost: CostOptions | undefined,
  ): unknown => {
    const result = programs.expression(source).evaluateJson(variables, cost);
    return result.omitted ? null : result.value;
  };

  const renderCollection = (
    node: CompiledNode,
    variables: Readonly<Record<string, unknown>>,
    cost: CostOptions | undefined,
  ): Outcome<readonly KubeJson[]> => {
    const dimensions: { name: string; values: readonly unknown[] }[] = [];
    for (const [i, dimension] of node.forEach.entries()) {
      let values: unknown;
      try {
        values = programs.expression(dimension.expression).evaluate(variables, cost);
      } catch (e) {
        return failure(e, location(node, "forEach", i, dimension.name));
      }
      // null/absent lists count as empty (kro's foreach-nil upgrade fixture).
      if (values === null) values = [];
      if (!Array.isArray(values))
        return {
          ok: false,
          error: `${location(node, "forEach", i, dimension.name)}: expression ${JSON.stringify(dimension.expression)} must return a list`,
        };
      dimensions.push({ name: dimension.name, values });
    }
    const product = cartesianProduct(dimensions, limits);
    if (!product.ok) return { ok: false, error: `${location(node, "forEach")}: ${product.error}` };
    const items: KubeJson[] = [];
    for (const iterators of product.items) {
      const rendered = renderTemplate(node, programs, { ...variables, ...iterators }, cost);
      if (!rendered.ok) return rendered;
      items.push(rendered.value);
    }
    return { ok: true, value: items };
  };

  return {
    isIncluded(node: CompiledNode, scope: EvaluationScope): Outcome<boolean> {
      if (node.includeWhen.length === 0) return { ok: true, value: true };
      const variables = scopeVariables(graph, scope);
      return allTrue(node.includeWhen, node, "includeWhen", (source) => evaluateJson(source, variables, scope.cost));
    },

    renderDesired(node: CompiledNode, scope: EvaluationScope): Outcome<readonly KubeJson[]> {
      const variables = scopeVariables(graph, scope);
      if (node.type === "collection") return renderCollection(node, variables, scope.cost);
      const rendered = renderTemplate(node, programs, variables, scope.cost);
      return rendered.ok ? { ok: true, value: [rendered.value] } : rendered;
    },

    isReady(node: CompiledNode, observed: KubeJson, scope: EvaluationScope): Outcome<boolean> {
      if (node.readyWhen.length === 0) return { ok: true, value: true };
      // Collections read the item as `each`; the compiler types external collections' readyWhen
      // with the node id bound to one item, so both names are bound to the item being checked.
      const item = toCel(observed, node.valueSchema);
      const variables = { [node.id]: item, each: item };
      const outcome = allTrue(node.readyWhen, node, "readyWhen", (source) =>
        evaluateJson(source, variables, scope.cost),
      );
      // A readyWhen reading a field the object does not report yet is simply "not ready yet".
      return !outcome.ok && outcome.pending !== undefined
        ? { ok: false, pending: { ...outcome.pending, kind: "readiness" } }
        : outcome;
    },

    projectStatus(g: CompiledGraph, scope: EvaluationScope) {
      return projectCelStatus(g, programs, scope);
    },
  };
}
