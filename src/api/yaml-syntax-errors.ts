/**
 * One YAML syntax error per document, told the way kubectl tells it: the first error with its
 * position, the count of the rest, and — when the cause is the usual one in an RGD, a `: ` inside
 * an unquoted `${…}` — a hint to quote the value. After the first error the parser resynchronises
 * token by token, so the errors behind it are almost always its echoes (one slip in a long file
 * used to produce hundreds of them, burying the one line that matters).
 */

export interface SyntaxErrorReport {
  readonly message: string;
  /** The offset the message is about: where the first error is. */
  readonly offset: number;
  readonly hint?: string;
}

/** The errors of one document (in order) reduced to one report; `text` is the whole file. */
export function reportSyntaxErrors(
  text: string,
  errors: readonly { readonly message: string; readonly pos: readonly [number, number] }[],
  documentRange: readonly [number, number],
): SyntaxErrorReport | undefined {
  const [first] = errors;
  if (first === undefined) return undefined;
  const offset = first.pos[0];
  const head = first.message.split("\n")[0] ?? first.message;
  const rest = errors.length - 1;
  const message =
    rest === 0
      ? head
      : `${head} (and ${rest} more error${rest === 1 ? "" : "s"} in this document, most likely caused by this one)`;
  const hint = colonHint(text, offset, documentRange);
  return { message, offset, ...(hint === undefined ? {} : { hint }) };
}

/** The hint when the first error's line holds an unquoted `${…}` with `: ` inside it. */
function colonHint(text: string, offset: number, [from, to]: readonly [number, number]): string | undefined {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  const lineEnd = lineEndAt(text, lineStart);
  const slip = unquotedColonExpression(text.slice(lineStart, lineEnd));
  if (slip === undefined) return undefined;
  const others: number[] = [];
  let line = 1 + countNewlines(text, 0, from);
  for (let start = from; start < to; start = lineEndAt(text, start) + 1, line++) {
    if (start !== lineStart && unquotedColonExpression(text.slice(start, lineEndAt(text, start))) !== undefined)
      others.push(line);
  }
  const shown = others.slice(0, 5).join(", ") + (others.length > 5 ? ", …" : "");
  const also = others.length === 0 ? "" : ` (the same on line${others.length === 1 ? "" : "s"} ${shown})`;
  return `YAML reads ": " inside an unquoted \${…} as a key separator; quote the whole value: ${slip}${also}`;
}

function lineEndAt(text: string, start: number): number {
  const end = text.indexOf("\n", start);
  return end < 0 ? text.length : end;
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * For a line such as `name: ${a ? b : c}` (or `- ${x: y}`), the line with its value quoted; undefined
 * when the value is quoted already, is a block scalar, or holds no `${…}` with `: ` inside.
 */
export function unquotedColonExpression(line: string): string | undefined {
  const dollar = line.indexOf("${");
  if (dollar < 0) return undefined;
  const before = line.slice(0, dollar);
  // The value starts after the last `key: ` or `- ` before the expression.
  const keyEnd = Math.max(before.lastIndexOf(": "), before.lastIndexOf(":\t"));
  const prefixEnd = keyEnd >= 0 ? keyEnd + 2 : (/^\s*(?:-\s+)*/.exec(before)?.[0].length ?? 0);
  const prefix = line.slice(0, prefixEnd).replace(/\s+$/, "");
  const value = line.slice(prefixEnd).trim();
  if (/^["'|>[{]/.test(value)) return undefined;
  if (!expressions(value).some((inner) => /:(\s|$)/.test(inner))) return undefined;
  return `${prefix.trimStart()}${prefix === "" ? "" : " "}${quote(value)}`;
}

/** The text inside each `${…}` of `value`, braces balanced. */
function expressions(value: string): string[] {
  const found: string[] = [];
  for (let start = value.indexOf("${"); start >= 0; start = value.indexOf("${", start + 2)) {
    let depth = 0;
    let end = start + 1;
    for (; end < value.length; end++) {
      if (value[end] === "{") depth++;
      else if (value[end] === "}" && --depth === 0) break;
    }
    found.push(value.slice(start + 2, end));
  }
  return found;
}

/** Single quotes unless the value holds one and no double quote or backslash. */
function quote(value: string): string {
  if (value.includes("'") && !value.includes('"') && !value.includes("\\")) return `"${value}"`;
  return `'${value.replaceAll("'", "''")}'`;
}
