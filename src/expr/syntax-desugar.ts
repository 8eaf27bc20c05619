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

const isIdent = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);
/** Characters cel-go allows between backticks. */
const QUOTED_FIELD = /^`[A-Za-z0-9_.\-/ ]+`/;

/** Scans past a string literal starting at `i` (at its opening quote); returns the end offset. */
function skipString(src: string, i: number, raw: boolean): number {
  const q = src[i] ?? "";
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let j = i + close.length;
  while (j < src.length) {
    if (!raw && src[j] === "\\") { j += 2; continue; }
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

export function desugar(src: string): Desugared {
  if (!/[`?\f]|[bB][rR]?['"]|[rR][bB]['"]|\.[0-9]/.test(src)) return { text: src, marks: undefined };
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
      out += src.slice(i, stop); i = stop; continue;
    }
    const prefix = /^([rR]?[bB]?|[bB]?[rR]?)(?=['"])/.exec(src.slice(i, i + 3))?.[1] ?? "";
    if ((c === '"' || c === "'" || prefix !== "") && !isIdent(src[i - 1])) {
      const raw = /[rR]/.test(prefix);
      const quoteAt = i + prefix.length;
      const end = skipString(src, quoteAt, raw);
      if (prefix.length === 2 && raw) {
        // `br'…'` → ` r'…'`: same length; the literal node starts at the `r`.
        rawBytes.add(out.length + 1);
        out += " r" + src.slice(quoteAt, end);
      } else if (/[bB]/.test(prefix)) {
        // cel-js takes a non-ASCII character of a bytes literal as one byte; CEL means its UTF-8.
        out += src.slice(i, end).replace(/[^\p{ASCII}]/gu, (ch) => [...new TextEncoder().encode(ch)].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join(""));
      } else out += src.slice(i, end);
      i = end; prev = "'"; continue;
    }
    if (c === "\f") { out += " "; i++; continue; }
    if (c === "." && /[0-9]/.test(src[i + 1] ?? "") && !(isIdent(prev) || prev === ")" || prev === "]" || prev === "}" || prev === "'")) {
      // `.5` is a double literal in CEL; cel-js wants the leading zero.
      out += "0."; i++; prev = "a"; continue;
    }
    if (c === "`" && prev === ".") {
      const m = QUOTED_FIELD.exec(src.slice(i));
      if (m !== null) {
        const name = m[0].slice(1, -1);
        const id = placeholderFor(name, quotedFields.size, src);
        quotedFields.set(id, name);
        out += id; i += m[0].length; prev = "a"; continue;
      }
    }
    if (c === "?" && (prev === "[" || prev === "{" || prev === ",") && (stack.at(-1) === "list" || stack.at(-1) === "map")) {
      optionalEntries.add(out.length);
      out += "-"; i++; prev = "-"; continue;
    }
    if (c === "[") stack.push(isIdent(prev) || prev === ")" || prev === "]" || prev === "}" || prev === "'" ? "other" : "list");
    else if (c === "{") stack.push(isIdent(prev) ? "other" : "map");
    else if (c === "(") stack.push("other");
    else if (c === ")" || c === "]" || c === "}") stack.pop();
    if (!/\s/.test(c)) prev = isIdent(c) ? "a" : c;
    out += c; i++;
  }
  const nothing = optionalEntries.size === 0 && quotedFields.size === 0 && rawBytes.size === 0;
  return { text: out, marks: nothing ? undefined : { optionalEntries, quotedFields, rawBytes } };
}
