/**
 * CEL syntax cel-js' parser does not read, rewritten into syntax it does, keeping every offset
 * (so error positions still point into the author's text). What was rewritten is returned as
 * marks keyed by source offset, for `ast-rewrites.ts` to restore on the parsed AST:
 *  - optional entries `[?e]` and `{?k: v}` (cel.OptionalTypes): the `?` becomes a unary `-`;
 *  - backtick-quoted field names `` x.`app.kubernetes.io/name` `` become a placeholder identifier
 *    of the same length (or longer when none is free);
 *  - raw bytes literals `br'…'` / `rb'…'` become raw strings ` r'…'`, converted back to bytes;
 *  - non-ASCII characters in bytes literals become `\xNN` escapes of their UTF-8 (cel-js takes
 *    each as one byte), and a double literal `.5` gets its leading zero — these two shift later
 *    offsets, but only in expressions that use them;
 *  - a form feed, which CEL counts as whitespace, becomes a space.
 * Strings and comments are skipped by a small scanner; anything it does not understand is left
 * alone for cel-js to report.
 */

export interface SyntaxMarks {
  /** Offsets of the unary `-` that stands for an optional entry's `?`. */
  readonly optionalEntries: ReadonlySet<number>;
  /** Placeholder identifier → the backtick-quoted field name it stands for. */
  readonly quotedFields: ReadonlyMap<string, string>;
  /** Offsets of string literals that are raw bytes literals. */
  readonly rawBytes: ReadonlySet<number>;
}

export interface Desugared {
  readonly text: string;
  /** undefined when nothing was rewritten (the common case: no AST pass needed). */
  readonly marks: SyntaxMarks | undefined;
}

/** [A-Za-z0-9_], without a regular expression: the scanner calls this for every character. */
function isIdent(c: string | undefined): boolean {
  if (c === undefined || c.length !== 1) return false;
  const k = c.charCodeAt(0);
  return (k >= 97 && k <= 122) || (k >= 65 && k <= 90) || (k >= 48 && k <= 57) || k === 95;
}
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9" && c.length === 1;
const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v";
const isQuote = (c: string | undefined): boolean => c === '"' || c === "'";

/** The string prefix (`b`, `r`, `br`, `rb`, any case) of a literal starting at `i`, or "". */
function stringPrefix(src: string, i: number): string {
  const c = src[i];
  if (c !== "b" && c !== "B" && c !== "r" && c !== "R") return "";
  const a = c.toLowerCase();
  if (isQuote(src[i + 1])) return src.slice(i, i + 1);
  const b = src[i + 1]?.toLowerCase();
  return (b === "b" || b === "r") && b !== a && isQuote(src[i + 2]) ? src.slice(i, i + 2) : "";
}
/** Characters cel-go allows between backticks. */
const QUOTED_FIELD = /^`[A-Za-z0-9_.\-/ ]+`/;

/** Scans past a string literal starting at `i` (at its opening quote); returns the end offset. */
function skipString(src: string, i: number, raw: boolean): number {
  const q = src[i] ?? "";
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  while (j < src.length) {
    if (!raw && src[j] === "\\") {
      j += 2;
      continue;
    }
    if (src.startsWith(close, j)) return j + close.length;
    if (!triple && src[j] === "\n") return j;
    j++;
  }
  return j;
}

function placeholderFor(name: string, index: number, src: string): string {
  const width = name.length + 2;
  for (let n = index; n < index + 1000; n++) {
    const core = `_${n.toString(36)}`;
    const candidate = core.length <= width ? core.padEnd(width, "_") : `${core}_`;
    if (!src.includes(candidate)) return candidate;
  }
  return `__kro_quoted_${index}_${Date.now().toString(36)}`;
}

/**
 * A cheap over-approximation of "the scanner would rewrite something": a `?` after `[`, `{` or
 * `,`; a backtick; a form feed; a two-letter string prefix; a `.` before a digit not preceded by
 * an operand. Expressions without any (nearly all) skip the scanner.
 */
const NEEDS_SCAN = /[[{,]\s*\?|`|\f|(?<![A-Za-z0-9_])(?:[bB][rR]|[rR][bB])['"]|(?:^|[^A-Za-z0-9_)\]}'"\s])\s*\.[0-9]/;

export function desugar(src: string): Desugared {
  if (!NEEDS_SCAN.test(src) && !(/[bB]['"]/.test(src) && /[^\p{ASCII}]/u.test(src)))
    return { text: src, marks: undefined };
  let out = "";
  const optionalEntries = new Set<number>();
  const quotedFields = new Map<string, string>();
  const rawBytes = new Set<number>();
  // Open brackets: "list" / "map" literals take optional entries; "other" (call, index, paren) not.
  const stack: ("list" | "map" | "other")[] = [];
  // The last significant character outside strings/comments, to tell `[` literal from index.
  let prev = "";
  let i = 0;
  while (i < src.length) {
    const c = src[i] ?? "";
    if (c === "/" && src[i + 1] === "/") {
      const end = src.indexOf("\n", i);
      const stop = end === -1 ? src.length : end;
      out += src.slice(i, stop);
      i = stop;
      continue;
    }
    const prefix = isIdent(src[i - 1]) ? "" : stringPrefix(src, i);
    // (stringPrefix returns at once for any character but b, B, r, R.)
    if (isQuote(c) || prefix !== "") {
      const raw = prefix.toLowerCase().includes("r");
      const quoteAt = i + prefix.length;
      const end = skipString(src, quoteAt, raw);
      if (prefix.length === 2 && raw) {
        // `br'…'` → ` r'…'`: same length; the literal node starts at the `r`.
        rawBytes.add(out.length + 1);
        out += " r" + src.slice(quoteAt, end);
      } else if (prefix.toLowerCase().includes("b")) {
        // cel-js takes a non-ASCII character of a bytes literal as one byte; CEL means its UTF-8.
        out += src
          .slice(i, end)
          .replace(/[^\p{ASCII}]/gu, (ch) =>
            [...new TextEncoder().encode(ch)].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join(""),
          );
      } else out += src.slice(i, end);
      i = end;
      prev = "'";
      continue;
    }
    if (c === "\f") {
      out += " ";
      i++;
      continue;
    }
    if (
      c === "." &&
      isDigit(src[i + 1]) &&
      !(isIdent(prev) || prev === ")" || prev === "]" || prev === "}" || prev === "'")
    ) {
      // `.5` is a double literal in CEL; cel-js wants the leading zero.
      out += "0.";
      i++;
      prev = "a";
      continue;
    }
    if (c === "`" && prev === ".") {
      const m = QUOTED_FIELD.exec(src.slice(i));
      if (m !== null) {
        const name = m[0].slice(1, -1);
        const id = placeholderFor(name, quotedFields.size, src);
        quotedFields.set(id, name);
        out += id;
        i += m[0].length;
        prev = "a";
        continue;
      }
    }
    if (
      c === "?" &&
      (prev === "[" || prev === "{" || prev === ",") &&
      (stack.at(-1) === "list" || stack.at(-1) === "map")
    ) {
      optionalEntries.add(out.length);
      out += "-";
      i++;
      prev = "-";
      continue;
    }
    if (c === "[")
      stack.push(isIdent(prev) || prev === ")" || prev === "]" || prev === "}" || prev === "'" ? "other" : "list");
    else if (c === "{") stack.push(isIdent(prev) ? "other" : "map");
    else if (c === "(") stack.push("other");
    else if (c === ")" || c === "]" || c === "}") stack.pop();
    if (!isSpace(c)) prev = isIdent(c) ? "a" : c;
    out += c;
    i++;
  }
  const nothing = optionalEntries.size === 0 && quotedFields.size === 0 && rawBytes.size === 0;
  return { text: out, marks: nothing ? undefined : { optionalEntries, quotedFields, rawBytes } };
}
