/**
 * What the cursor is completing inside a `${…}`: the selection chain before it (`schema.spec.` →
 * ["schema", "spec"]) and the part of a name already typed. Read from the line's text alone, so
 * it works while the expression is unterminated and the RGD does not compile, as it is mid-typing.
 */

export interface CompletionContext {
  /** Names selected so far; a number stands for an index step (`[0]`), i.e. a list's items. */
  readonly chain: readonly (string | number)[];
  /** The part of the name under completion already typed. */
  readonly typed: string;
  /** Set when a step so far was optional (`.?`): what the chain selects is an optional. */
  readonly optional?: true;
}

/** True when `${…}` opened at the start of `inside` has been closed (braces of strings ignored). */
function closed(inside: string): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (let index = 0; index < inside.length; index++) {
    const char = inside[index];
    if (quote !== undefined) {
      if (char === "\\") index++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "{") depth++;
    else if (char === "}") {
      if (depth === 0) return true;
      depth--;
    }
  }
  return false;
}

const NAME = String.raw`[A-Za-z_]\w*`;
const STEP = String.raw`${NAME}(?:\s*\[[^\]]*\])*`;
const TAIL = new RegExp(String.raw`(^|[^\w.\])\s])\s*((?:${STEP}\s*\.\??\s*)*)(${NAME})?$`);

/** The chain and typed name at the end of `linePrefix`, when it ends inside an open `${`. */
export function completionContext(linePrefix: string): CompletionContext | undefined {
  const open = linePrefix.lastIndexOf("${");
  if (open < 0) return undefined;
  const inside = linePrefix.slice(open + 2);
  if (closed(inside)) return undefined;
  // A space keeps the lookbehind honest at the start of the expression.
  const match = TAIL.exec(` ${inside}`);
  if (match === null) return undefined;
  const chain: (string | number)[] = [];
  for (const step of (match[2] ?? "").split(/\s*\.\??\s*/)) {
    if (step === "") continue;
    const name = /^[A-Za-z_]\w*/.exec(step)?.[0] ?? "";
    chain.push(name, ...[...step.matchAll(/\[/g)].map(() => 0));
  }
  const optional = /\.\s*\?/.test(match[2] ?? "");
  return { chain, typed: match[3] ?? "", ...(optional ? { optional } : {}) };
}
