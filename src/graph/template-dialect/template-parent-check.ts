/**
 * Checks the `.parent.spec.<…>` reads of a template-dialect RGD against the parent CRD's schema
 * when the compiler knows it (`--crd` offline, the live CRD in the controller). A misspelt field
 * renders `<no value>` in Go templates instead of failing, so these are warnings at the position
 * of the read. Free-form parts of the schema (preserve-unknown-fields, additionalProperties,
 * no properties) end the check.
 */
import { warning, type Issue } from "../../diag/index.js";
import type { OpenApiSchema } from "../../expr/index.js";
import type { ParsedSource } from "./template-parse.js";

function isFreeForm(schema: OpenApiSchema): boolean {
  const extra = schema.additionalProperties;
  return (
    schema["x-kubernetes-preserve-unknown-fields"] === true ||
    extra === true ||
    typeof extra === "object" ||
    schema.properties === undefined
  );
}

/** The first step of `path` the schema does not define, with the names it does define there. */
function unknownStep(schema: OpenApiSchema, path: readonly string[]): { depth: number; known: string[] } | undefined {
  let node = schema;
  for (const [depth, step] of path.entries()) {
    if (node.type === "array" || isFreeForm(node)) return undefined;
    const next = node.properties?.[step];
    if (next === undefined) return { depth, known: Object.keys(node.properties ?? {}) };
    node = next;
  }
  return undefined;
}

export function checkParentReads(
  sources: readonly ParsedSource[],
  kind: string,
  instanceSchema: OpenApiSchema | undefined,
): Issue[] {
  const issues: Issue[] = [];
  for (const source of sources) {
    for (const read of source.parent) {
      const [root, ...rest] = read.path;
      const inner = { line: read.line, column: read.column };
      if (root === "status") {
        issues.push({
          ...warning(
            "template.parent-status",
            source.path,
            `templates cannot read .parent.status: the parent is given without its status (read a child's status as .children.<id>.status)`,
          ),
          inner,
        });
        continue;
      }
      const spec = instanceSchema?.properties?.spec;
      if (root !== "spec" || spec === undefined) continue;
      const missing = unknownStep(spec, rest);
      if (missing === undefined) continue;
      const field = ["spec", ...rest.slice(0, missing.depth + 1)].join(".");
      const known = missing.known.length === 0 ? "" : ` (it has: ${missing.known.join(", ")})`;
      issues.push({
        ...warning(
          "template.parent-unknown-field",
          source.path,
          `.parent.${field} is not in the schema of ${kind}${known}; it would render <no value>`,
        ),
        inner,
      });
    }
  }
  return issues;
}
