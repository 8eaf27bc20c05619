/**
 * Phase 9's author conditions (`spec.schema.status.conditions`, docs/reference/kro-reference.md
 * §6.11): a list of standalone expressions. Each has its `runtime.newCondition` keys normalised
 * (kro's macro), is type-checked in the status scope and held to the static rules of
 * `analyzeAuthorCondition`; two entries may not declare the same literal type.
 */
import { error, prefixIssues, type Issue, type IssuePath } from "../../diag/index.js";
import {
  CONDITION_CODES,
  analyzeAuthorCondition,
  extractExpressions,
  normalizeConditionKeys,
  type AuthorConditionAnalysis,
  type KroCelEnvironment,
  type NormalizedCondition,
  type TypedScope,
} from "../../expr/index.js";

export interface CheckedConditions {
  readonly issues: readonly Issue[];
  /** `${…}` texts of the entries that passed, with newCondition keys quoted so plain CEL evaluates them. */
  readonly conditions: readonly string[];
}

function attempt<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch {
    return undefined; // a parse error: the type check reports it with its path
  }
}

export function checkAuthorConditions(
  env: KroCelEnvironment,
  scope: TypedScope,
  value: unknown,
  path: IssuePath,
): CheckedConditions {
  if (value === undefined) return { issues: [], conditions: [] };
  if (!Array.isArray(value))
    return {
      issues: [error("rgd.invalid-field", path, 'status.conditions must be a list of "${...}" expressions')],
      conditions: [],
    };
  const issues: Issue[] = [];
  const conditions: string[] = [];
  const declaredAt = new Map<string, number>();
  value.forEach((entry: unknown, index) => {
    const at = [...path, index];
    const found = typeof entry === "string" ? extractExpressions(entry) : undefined;
    const [segment] = found?.segments ?? [];
    if (typeof entry !== "string" || found === undefined || !found.standalone || segment?.kind !== "expression") {
      issues.push(
        error(
          "rgd.not-standalone",
          at,
          `conditions entries must be a single "\${...}" expression, got ${JSON.stringify(entry)}`,
        ),
      );
      return;
    }
    const normalized: NormalizedCondition | undefined = attempt(() => normalizeConditionKeys(env, segment.source));
    if (normalized !== undefined && normalized.issues.length > 0) {
      // bare keys left in place would only add "undeclared reference" noise to the type check
      issues.push(...prefixIssues(at, normalized.issues));
      return;
    }
    const expression = normalized?.expression ?? segment.source;
    const own = [...scope.check(expression, { path: at }).issues];
    const analysis: AuthorConditionAnalysis | undefined = attempt(() => analyzeAuthorCondition(env, expression));
    own.push(...prefixIssues(at, analysis?.issues ?? []));
    for (const type of analysis?.literalTypes ?? []) {
      const first = declaredAt.get(type);
      if (first === undefined) declaredAt.set(type, index);
      else
        own.push(
          error(
            CONDITION_CODES.duplicateType,
            at,
            `condition type "${type}" is already declared by conditions[${first}]`,
          ),
        );
    }
    issues.push(...own);
    if (!own.some((i) => i.severity === "error")) conditions.push(`\${${expression}}`);
  });
  return { issues, conditions };
}
