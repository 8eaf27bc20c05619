/**
 * Phase 9's author conditions (`spec.schema.status.conditions`, kro-reference.md §6.11): a list
 * of standalone expressions, each type-checked in the status scope and held to the static rules
 * of `analyzeAuthorCondition`; two entries may not declare the same literal type.
 */
import { error, prefixIssues, type Issue, type IssuePath } from "../diag/index.js";
import { CONDITION_CODES, analyzeAuthorCondition, extractExpressions, type AuthorConditionAnalysis, type KroCelEnvironment, type TypedScope } from "../expr/index.js";

export interface CheckedConditions {
  readonly issues: readonly Issue[];
  /** The raw `${…}` texts of the entries that passed. */
  readonly conditions: readonly string[];
}

export function checkAuthorConditions(env: KroCelEnvironment, scope: TypedScope, value: unknown, path: IssuePath): CheckedConditions {
  if (value === undefined) return { issues: [], conditions: [] };
  if (!Array.isArray(value)) return { issues: [error("rgd.invalid-field", path, "status.conditions must be a list of \"${...}\" expressions")], conditions: [] };
  const issues: Issue[] = [];
  const conditions: string[] = [];
  const declaredAt = new Map<string, number>();
  value.forEach((entry: unknown, index) => {
    const at = [...path, index];
    const found = typeof entry === "string" ? extractExpressions(entry) : undefined;
    const [segment] = found?.segments ?? [];
    if (typeof entry !== "string" || found === undefined || !found.standalone || segment?.kind !== "expression") {
      issues.push(error("rgd.not-standalone", at, `conditions entries must be a single "\${...}" expression, got ${JSON.stringify(entry)}`));
      return;
    }
    const checked = scope.check(segment.source, { path: at });
    const own = [...checked.issues];
    let analysis: AuthorConditionAnalysis | undefined;
    try {
      analysis = analyzeAuthorCondition(env, segment.source);
    } catch {
      analysis = undefined; // a parse error, already reported by the type check
    }
    own.push(...prefixIssues(at, analysis?.issues ?? []));
    for (const type of analysis?.literalTypes ?? []) {
      const first = declaredAt.get(type);
      if (first === undefined) declaredAt.set(type, index);
      else own.push(error(CONDITION_CODES.duplicateType, at, `condition type "${type}" is already declared by conditions[${first}]`));
    }
    issues.push(...own);
    if (!own.some((i) => i.severity === "error")) conditions.push(entry);
  });
  return { issues, conditions };
}
