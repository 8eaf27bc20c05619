/**
 * The template dialect's DialectEvaluator (docs/reference/seed-dialect.md): `condition` decides
 * inclusion, `nameTemplate` + `template` render the desired object, `readyWhen` decides readiness,
 * and statusMappings project the parent's status. A `.children.<id>` read of a child that is not
 * observed yet is pending, never an error.
 */
import type { CompiledGraph, CompiledNode } from "../../graph/index.js";
import type { DialectEvaluator, EvaluationScope, Outcome, ProjectedStatus } from "../dialect.js";
import type { KubeJson } from "../types.js";
import { templateData } from "./data.js";
import { renderChild } from "./desired.js";
import { instanceEntropy } from "./entropy.js";
import { runTemplate, templateTruth } from "./run.js";
import { renderManifests, retainedManifests } from "./manifests.js";
import { projectMappedStatus } from "./status.js";
import { childTemplates } from "./templates.js";

/**
 * Pending while a child read as `.children.<id>` has not been observed. `missingPath` starts with
 * the id, so the core reports it as waiting on that dependency.
 */
function missingChildren(
  node: CompiledNode,
  ids: readonly string[],
  scope: EvaluationScope,
): Outcome<never> | undefined {
  const missing = ids.filter((id) => (scope.observed.get(id) ?? []).length === 0 || scope.excluded.has(id));
  const [first] = missing;
  if (first === undefined) return undefined;
  return {
    ok: false,
    pending: {
      kind: "data-pending",
      message: `child "${node.id}" reads .children.${first}, which is not observed yet`,
      waitingOn: missing,
      missingPath: first,
    },
  };
}

export const templateEvaluator: DialectEvaluator = {
  isIncluded(node, scope): Outcome<boolean> {
    const { condition, conditionChildren } = childTemplates(node);
    if (condition === undefined) return { ok: true, value: true };
    const waiting = missingChildren(node, conditionChildren, scope);
    if (waiting) return waiting;
    const out = runTemplate(
      `child "${node.id}"`,
      "condition",
      condition,
      templateData(scope),
      instanceEntropy(scope.instance),
      scope.deadline,
    );
    if (!out.ok) return out;
    const included = templateTruth(out.value);
    if (included === undefined)
      return {
        ok: false,
        error: `child "${node.id}": condition rendered ${JSON.stringify(out.value.trim())}; it must render true or false (empty output and <no value> count as false)`,
      };
    return { ok: true, value: included };
  },

  renderDesired(node, scope): Outcome<readonly KubeJson[]> {
    const waiting = missingChildren(node, node.templateSource?.childReferences ?? [], scope);
    if (waiting) return waiting;
    const rendered = renderChild(
      node,
      childTemplates(node),
      templateData(scope),
      instanceEntropy(scope.instance),
      scope.deadline,
    );
    return rendered.ok ? { ok: true, value: [rendered.value] } : rendered;
  },

  isReady(node, observed, scope): Outcome<boolean> {
    const { readyWhen } = childTemplates(node);
    const data = templateData(scope, observed);
    for (const [i, template] of readyWhen.entries()) {
      const out = runTemplate(
        `child "${node.id}"`,
        `readyWhen[${i}]`,
        template,
        data,
        instanceEntropy(scope.instance),
        scope.deadline,
      );
      if (!out.ok && out.limit === true) return { ok: false, error: out.error ?? "readyWhen exceeded a limit" };
      // Status fields appear over time; a failing readyWhen means "not ready yet", like CEL's.
      if (!out.ok)
        return {
          ok: false,
          pending: { kind: "readiness", message: out.error ?? "readyWhen failed", expression: node.readyWhen[i] ?? "" },
        };
      const ready = templateTruth(out.value);
      if (ready === undefined)
        return {
          ok: false,
          error: `child "${node.id}": readyWhen[${i}] rendered ${JSON.stringify(out.value.trim())}; it must render true or false`,
        };
      if (!ready) return { ok: true, value: false };
    }
    return { ok: true, value: true };
  },

  projectStatus(graph: CompiledGraph, scope: EvaluationScope): ProjectedStatus {
    if (graph.dialect !== "template")
      return {
        fields: {},
        conditions: [],
        replacesBuiltins: false,
        errors: [`internal: graph ${graph.name} is not a template-dialect graph`],
      };
    return projectMappedStatus(graph, scope);
  },
};

/**
 * The evaluator of a graph with spec.helm: `manifests` children render their chart template's
 * objects of their kind; everything else is the plain template evaluator.
 */
export function createTemplateEvaluator(graph: CompiledGraph): DialectEvaluator {
  const helm = graph.dialect === "template" ? graph.helm : undefined;
  if (helm === undefined) return templateEvaluator;
  const byTemplate = new Map<string, string[]>();
  for (const node of graph.nodes) {
    const template = node.templateSource?.manifests?.template;
    if (template !== undefined) byTemplate.set(template, [...(byTemplate.get(template) ?? []), node.id]);
  }
  const owners = (template: string): readonly string[] => byTemplate.get(template) ?? [];
  return {
    ...templateEvaluator,
    renderDesired(node, scope) {
      if (node.templateSource?.manifests === undefined) return templateEvaluator.renderDesired(node, scope);
      return renderManifests(helm, node, scope.instance, scope.helm, owners);
    },
    retained(node, scope) {
      return node.templateSource?.manifests === undefined
        ? []
        : retainedManifests(helm, node, scope.instance, scope.helm);
    },
  };
}
