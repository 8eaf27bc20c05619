/**
 * `${…}` extraction with kro's scanner rules (§4.1): braces are counted so map literals work,
 * braces inside double-quoted CEL strings are ignored, a nested `${` is an error unless it directly
 * follows a `"` (the documented `${"${VAR}"}` escape). Never throws: problems become issues.
 */
import { error, warning, type Issue } from "../diag/index.js";

export type Segment =
  | { readonly kind: "literal"; readonly text: string }
  | {
      readonly kind: "expression";
      /** CEL source between `${` and the matching `}`. */
      readonly source: string;
      /** Offset of `${` in the scanned string. */
      readonly start: number;
      /** Offset just past the closing `}`. */
      readonly end: number;
    };

export interface ExtractOptions {
  /**
   * kro v0.9 silently keeps an unterminated `${` as literal text (surprise 26); its docs call it an
   * error. Default: an error issue. `true`: kro's behaviour, reported as a warning.
   */
  readonly unterminatedAsLiteral?: boolean;
}

export interface Extraction {
  readonly segments: readonly Segment[];
  /** True when the whole string is exactly one `${…}`: the result keeps its CEL type. */
  readonly standalone: boolean;
  readonly issues: readonly Issue[];
}

export const EXTRACT_CODES = {
  nested: "expr.nested-expression",
  unterminated: "expr.unterminated-expression",
  empty: "expr.empty-expression",
} as const;

/** Scans one string value. */
export function extractExpressions(text: string, options: ExtractOptions = {}): Extraction {
  const segments: Segment[] = [];
  const issues: Issue[] = [];
  let literal = "";
  let pos = 0;
  while (pos < text.length) {
    const open = text.indexOf("${", pos);
    if (open === -1) break;
    literal += text.slice(pos, open);
    const scanned = scanExpression(text, open);
    if (scanned.kind === "nested") {
      issues.push(
        error(
          EXTRACT_CODES.nested,
          [],
          `nested expressions are not allowed unless inside string literals: ${JSON.stringify(text)}`,
        ),
      );
      return { segments: [{ kind: "literal", text }], standalone: false, issues };
    }
    if (scanned.kind === "unterminated") {
      const message = `unterminated expression starting at offset ${open}: ${JSON.stringify(text.slice(open, open + 40))}`;
      if (options.unterminatedAsLiteral === true) {
        issues.push(warning(EXTRACT_CODES.unterminated, [], `${message} (kept as literal text)`));
        literal += text.slice(open);
        pos = text.length;
        break;
      }
      issues.push(error(EXTRACT_CODES.unterminated, [], message));
      return { segments: [{ kind: "literal", text }], standalone: false, issues };
    }
    if (literal !== "") segments.push({ kind: "literal", text: literal });
    literal = "";
    const source = text.slice(open + 2, scanned.close);
    if (source.trim() === "")
      issues.push(error(EXTRACT_CODES.empty, [], `empty expression "\${}" in ${JSON.stringify(text)}`));
    segments.push({ kind: "expression", source, start: open, end: scanned.close + 1 });
    pos = scanned.close + 1;
  }
  literal += text.slice(pos);
  if (literal !== "") segments.push({ kind: "literal", text: literal });
  const standalone = segments.length === 1 && segments[0]?.kind === "expression";
  return { segments, standalone, issues };
}

type Scan = { kind: "ok"; close: number } | { kind: "nested" } | { kind: "unterminated" };

/** From the `${` at `open`, finds the `}` that closes it. */
function scanExpression(text: string, open: number): Scan {
  let depth = 1;
  let inString = false;
  for (let i = open + 2; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\")
        i++; // the escaped character cannot end the literal
      else if (c === '"') inString = false;
      // kro checks for nested `${` in string literals too; only `"${` is exempt.
      else if (c === "$" && text[i + 1] === "{" && text[i - 1] !== '"') return { kind: "nested" };
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "$" && text[i + 1] === "{" && text[i - 1] !== '"') return { kind: "nested" };
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return { kind: "ok", close: i };
  }
  return { kind: "unterminated" };
}

/** True when the string contains at least one `${`, i.e. it is not a plain literal. */
export function hasExpressions(text: string): boolean {
  return text.includes("${");
}
