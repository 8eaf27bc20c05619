/**
 * Parsing one Go template of a template-dialect RGD at compile time: syntax errors become issues
 * at the string's path plus the line/column inside it, and `.children.<id>` reads are collected
 * with their positions so unknown ids can be reported where they are written.
 */
import { innerError, type Issue, type IssuePath } from "../../diag/index.js";
import {
  fieldReferences,
  isTemplateError,
  parseTemplate,
  regexLiteralProblems,
  type FieldReference,
} from "../../template/index.js";

export interface ParsedSource {
  readonly text: string;
  readonly path: IssuePath;
  readonly children: readonly FieldReference[];
  /** `.parent.<…>` reads from the root, checked against the parent CRD's schema when known. */
  readonly parent: readonly FieldReference[];
}

/** Name a child's templates carry in Go's messages: `web.template`, `web.readyWhen[0]`. */
export function templateName(id: string, part: string): string {
  return `${id}.${part}`;
}

/** Parses `value` (expected to be a string) as a Go template; undefined after reporting an issue. */
export function parseSource(
  value: unknown,
  path: IssuePath,
  name: string,
  what: string,
  issues: Issue[],
): ParsedSource | undefined {
  if (typeof value !== "string") {
    issues.push({
      severity: "error",
      code: "rgd.invalid-field",
      path,
      message: `${what} must be a string holding a Go template, got ${value === null ? "null" : Array.isArray(value) ? "a list" : typeof value}`,
    });
    return undefined;
  }
  try {
    const template = parseTemplate(name, value);
    for (const problem of regexLiteralProblems(template))
      issues.push(
        innerError(
          "template.invalid-regex",
          path,
          { line: problem.line, column: problem.column },
          `template: ${name}: ${problem.message}`,
        ),
      );
    return {
      text: value,
      path,
      children: fieldReferences(template, "children"),
      parent: fieldReferences(template, "parent"),
    };
  } catch (e) {
    if (!isTemplateError(e)) throw e;
    issues.push(innerError("template.parse-error", path, { line: e.line, column: e.column }, e.message));
    return undefined;
  }
}
