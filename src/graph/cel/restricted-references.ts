/**
 * Which identifiers an expression may read, by where it stands (kro pkg/graph/builder.go):
 * `runtime.*` exists only in `spec.schema.status.conditions` (kro registers that library for
 * conditions alone), and an instance status field must read a resource or `schema` — kro
 * v0.9.3's buildInstanceNode: "instance status field must refer to a resource or schema" (a field
 * that reads nothing is a constant the author should put elsewhere; `schema` alone is allowed,
 * measured with kro's own builder, see docs/design/compatibility.md).
 */
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import { referencedIdentifiers, type FoundField, type KroCelEnvironment } from "../../expr/index.js";

const SCHEMA = "schema";

export const REFERENCE_CODES = {
  runtime: "rgd.runtime-outside-conditions",
  statusNoResource: "rgd.status-without-resource",
} as const;

const RUNTIME = "runtime";

function identifiers(env: KroCelEnvironment, text: string): Set<string> | undefined {
  try {
    return referencedIdentifiers(env, text);
  } catch {
    return undefined; // the type-check phase reports the parse error with its path
  }
}

/** One error per expression (outside status.conditions) that reads `runtime`. */
export function checkRuntimeOutsideConditions(
  env: KroCelEnvironment,
  expressions: readonly { readonly text: string; readonly path: IssuePath }[],
): Issue[] {
  return expressions
    .filter((e) => identifiers(env, e.text)?.has(RUNTIME) === true)
    .map((e) =>
      error(
        REFERENCE_CODES.runtime,
        e.path,
        `expression ${JSON.stringify(e.text)}: the runtime functions are only available in spec.schema.status.conditions`,
      ),
    );
}

/** Status fields: no `runtime`, and at least one resource id or `schema` read across the field's expressions. */
export function checkStatusReferences(
  env: KroCelEnvironment,
  fields: readonly FoundField[],
  ids: ReadonlySet<string>,
  base: IssuePath,
): Issue[] {
  const issues: Issue[] = [];
  for (const field of fields) {
    const path = [...base, ...field.path];
    const sources = field.segments.flatMap((s) => (s.kind === "expression" ? [s.source] : []));
    issues.push(
      ...checkRuntimeOutsideConditions(
        env,
        sources.map((text) => ({ text, path })),
      ),
    );
    const names = sources.map((text) => identifiers(env, text));
    if (names.some((n) => n === undefined)) continue;
    if (!names.some((n) => [...(n ?? [])].some((name) => ids.has(name) || name === SCHEMA))) {
      issues.push(
        error(
          REFERENCE_CODES.statusNoResource,
          path,
          `instance status field must refer to a resource or schema: ${JSON.stringify(field.text)} reads neither a resource of the graph nor schema`,
        ),
      );
    }
  }
  return issues;
}
