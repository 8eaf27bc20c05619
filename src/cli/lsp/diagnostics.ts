/**
 * The compiler's issues as LSP diagnostics. The compiler gives where an issue starts (the key of
 * the field it is about, as `kro validate` prints); the range runs on to the end of that field's
 * value, or covers just the `${…}` a CEL message names (`expression "…": …`) when it is found
 * there, so that of two expressions in one value the broken one is underlined.
 */
import type { LocatedIssue, SourceSpan } from "../../api/index.js";
import { DiagnosticSeverity, type Diagnostic } from "vscode-languageserver/node";
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { Analysis } from "./analysis.js";

/** The CLI's own complaint about a YAML file without an RGD: an editor opens many such files. */
const NOT_AN_RGD = "cli.no-rgd";

/** Where the word at `offset` ends on its line: at least one character, unless the line ends there. */
function wordEnd(text: string, offset: number): number {
  let end = offset;
  while (end < text.length && !/[\s:]/.test(text[end] ?? "")) end++;
  return end === offset && offset < text.length && text[offset] !== "\n" ? offset + 1 : end;
}

/** `expression "…"` at the head of a CEL message: the expression it is about. */
function namedExpression(message: string): string | undefined {
  const quoted = /^expression ("(?:[^"\\]|\\.)*")/.exec(message)?.[1];
  if (quoted === undefined) return undefined;
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}

/** The span of the value at the issue's path, in whichever RGD document the compiler located it. */
function valueSpan(analysis: Analysis, located: LocatedIssue): SourceSpan | undefined {
  if (located.issue.inner !== undefined || located.issue.path.length === 0) return undefined;
  const at = located.position;
  for (const document of analysis.loaded.documents) {
    const position = document.locate(located.issue.path);
    if (position?.line === at?.line && position?.column === at?.column) return document.span(located.issue.path);
  }
  return undefined;
}

export function issueRange(analysis: Analysis, text: TextDocument, located: LocatedIssue): SourceSpan {
  const source = text.getText();
  if (located.position === undefined) return { start: 0, end: wordEnd(source, 0) };
  const start = text.offsetAt({ line: located.position.line - 1, character: located.position.column - 1 });
  const value = valueSpan(analysis, located);
  if (value === undefined || value.end <= start) return { start, end: wordEnd(source, start) };
  const expression = namedExpression(located.issue.message);
  if (expression !== undefined) {
    const at = source.slice(start, value.end).indexOf(`\${${expression}}`);
    if (at >= 0) return { start: start + at, end: start + at + expression.length + 3 };
  }
  return { start, end: value.end };
}

export function toDiagnostics(analysis: Analysis, text: TextDocument): Diagnostic[] {
  return analysis.compiled.located
    .filter((located) => located.issue.code !== NOT_AN_RGD)
    .map((located) => {
      const span = issueRange(analysis, text, located);
      return {
        range: { start: text.positionAt(span.start), end: text.positionAt(span.end) },
        severity: located.issue.severity === "error" ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
        code: located.issue.code,
        source: "kro",
        message: located.hint === undefined ? located.issue.message : `${located.issue.message}\nhint: ${located.hint}`,
      };
    });
}
