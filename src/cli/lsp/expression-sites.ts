/**
 * Where `${…}` expressions sit in a document's text, and the identifiers inside them, as offsets:
 * what go-to-definition, references and completion look at. The expressions are found with the
 * compiler's own scanner (`extractExpressions`), run over each string's source text so that its
 * offsets are the file's; only the identifiers are lexed here.
 */
import type { SourceDocument, SourceSpan } from "../../api/index.js";
import { extractExpressions } from "../../expr/index.js";

export interface IdentifierToken {
  readonly name: string;
  /** Offsets in the file's text. */
  readonly span: SourceSpan;
  /** True for the first name of a selection chain (`deploy` in `deploy.spec`), which may be a resource id. */
  readonly root: boolean;
}

export interface ExpressionSite {
  /** From `${` to just past `}`, in the file's text. */
  readonly span: SourceSpan;
  readonly source: string;
  readonly identifiers: readonly IdentifierToken[];
}

/** Every `${…}` in the document's string values, in source order. */
export function expressionSites(document: SourceDocument, text: string): ExpressionSite[] {
  const sites: ExpressionSite[] = [];
  for (const string of document.strings()) {
    if (string.isKey || !string.value.includes("${")) continue;
    const raw = text.slice(string.span.start, string.span.end);
    for (const segment of extractExpressions(raw).segments) {
      if (segment.kind !== "expression") continue;
      const sourceStart = string.span.start + segment.start + 2;
      sites.push({
        span: { start: string.span.start + segment.start, end: string.span.start + segment.end },
        source: segment.source,
        identifiers: identifiersOf(segment.source, sourceStart),
      });
    }
  }
  return sites;
}

const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_]/;

/** Index just past a CEL string literal opening at `from` (either quote, backslash escapes). */
function skipString(source: string, from: number): number {
  const quote = source[from];
  let index = from + 1;
  while (index < source.length && source[index] !== quote) index += source[index] === "\\" ? 2 : 1;
  return index + 1;
}

/** The previous character that is not whitespace, or undefined. */
function previousMark(source: string, before: number): string | undefined {
  for (let index = before - 1; index >= 0; index--) {
    const char = source[index] ?? "";
    if (!/\s/.test(char)) return char;
  }
  return undefined;
}

/**
 * The identifiers of one CEL source, offset by `base`. Names after `.` (or `.?`) are fields, not
 * roots; numbers and string literals are skipped. A name called as a function is left out.
 */
export function identifiersOf(source: string, base: number): IdentifierToken[] {
  const tokens: IdentifierToken[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index] ?? "";
    if (char === '"' || char === "'") {
      index = skipString(source, index);
    } else if (/[0-9]/.test(char)) {
      while (index < source.length && IDENTIFIER_PART.test(source[index] ?? "")) index++;
    } else if (IDENTIFIER_START.test(char)) {
      const start = index;
      while (index < source.length && IDENTIFIER_PART.test(source[index] ?? "")) index++;
      const mark = previousMark(source, start);
      const field = mark === "." || (mark === "?" && previousMark(source, source.lastIndexOf("?", start)) === ".");
      const call = /^\s*\(/.test(source.slice(index));
      if (!call) {
        tokens.push({
          name: source.slice(start, index),
          span: { start: base + start, end: base + index },
          root: !field,
        });
      }
    } else {
      index++;
    }
  }
  return tokens;
}
