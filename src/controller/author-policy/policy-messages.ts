/**
 * The refusal message of one author check, as a CEL messageExpression that is cheap to evaluate.
 * Why cheap matters: the API server evaluates every validation's messageExpression on every
 * admitted write, passing or not (k8s.io/apiserver, policy/validating/validator.go, 1.33), and a
 * tenant's write pays for all of them — measured about half of the author policy's time inside
 * the API server for the fan-out RGD (bench --scenario admission; docs/performance-archive.md,
 * "Admission"). So: what is known when the policy is generated is folded into one literal, a
 * scope that can never be empty is not tested for emptiness, and an adoption check's message is
 * only built when the instance adopts (otherwise the check passes and nobody reads it). The text
 * is the same as the plain concatenation would give. Pure.
 */
import type { AuthorCheck } from "./author-checks.js";

/** A piece of the message: text known now, or a CEL string expression. */
type Part = { readonly text: string } | { readonly cel: string };

const isLiteral = (cel: string): boolean => /^"(?:[^"\\]|\\.)*"$/.test(cel);
const literal = (cel: string): string => JSON.parse(cel) as string;

/** The top-level operands of a `+` chain (outside parentheses and string literals). */
function operands(cel: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted: string | undefined;
  let start = 0;
  for (let i = 0; i < cel.length; i++) {
    const c = cel[i];
    if (quoted !== undefined) {
      if (c === "\\") i++;
      else if (c === quoted) quoted = undefined;
    } else if (c === '"' || c === "'") quoted = c;
    else if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    else if (depth === 0 && c === "?")
      return [cel]; // a conditional: no top-level chain to read
    else if (depth === 0 && c === "+") {
      parts.push(cel.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(cel.slice(start).trim());
  return parts;
}

/**
 * True when the string expression can never be empty: a non-empty literal, the namespace of a
 * namespaced instance (`request.namespace`, only ever used for one), or a `+` chain with a
 * non-empty literal operand (`string(object.metadata.name) + "-config"`).
 */
export function neverEmpty(cel: string): boolean {
  if (cel === "request.namespace") return true;
  return operands(cel).some((part) => isLiteral(part) && literal(part) !== "");
}

/** `prefix + value`, or `''` when value is empty: folded when known now. */
function unlessEmpty(prefix: string, value: string, otherwise: string): Part[] {
  if (isLiteral(value)) return [{ text: literal(value) === "" ? otherwise : prefix + literal(value) }];
  if (neverEmpty(value)) return [{ text: prefix }, { cel: value }];
  return [{ cel: `(${value} == '' ? ${JSON.stringify(otherwise)} : ${JSON.stringify(prefix)} + ${value})` }];
}

/** `guarded ? precise : strict` over message parts (a field the scope reads may be absent at admission). */
function scopedParts(check: AuthorCheck, precise: Part[], strict: Part[]): Part[] {
  return check.guards.length === 0
    ? precise
    : [{ cel: `((${check.guards.join(" && ")}) ? ${join(precise)} : ${join(strict)})` }];
}

/** One CEL string expression; adjacent known texts merged into one literal. */
function join(parts: readonly Part[]): string {
  const merged: Part[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if ("text" in part && last !== undefined && "text" in last)
      merged[merged.length - 1] = { text: last.text + part.text };
    else merged.push(part);
  }
  const out = merged
    .filter((p) => !("text" in p) || p.text !== "")
    .map((p) => ("text" in p ? JSON.stringify(p.text) : p.cel));
  return out.length === 0 ? "''" : out.join(" + ");
}

/** "user U may not VERB WHAT[ named N][ in namespace NS | in all namespaces | (cluster-scoped)], which resource … would PURPOSE". */
export function messageExpression(check: AuthorCheck, rgdName: string): string {
  const what = check.group === "" ? check.resource : `${check.resource}.${check.group}`;
  const named = check.name === undefined ? [] : scopedParts(check, unlessEmpty(" named ", check.name, ""), []);
  const where: Part[] = check.clusterScoped
    ? [{ text: " (cluster-scoped)" }]
    : check.namespace === undefined
      ? [{ text: " in all namespaces" }]
      : scopedParts(check, unlessEmpty(" in namespace ", check.namespace, " in all namespaces"), [
          { text: " in all namespaces" },
        ]);
  const nodes = check.nodeIds.map((id) => `"${id}"`).join(", ");
  const purpose =
    check.when === undefined ? check.verb : `${check.verb} (to adopt an existing object, annotation kro.run/adopt)`;
  const message = join([
    { text: "user " },
    { cel: "request.userInfo.username" },
    { text: ` may not ${check.verb} ${what}` },
    ...named,
    ...where,
    { text: `, which resource ${nodes} of ResourceGraphDefinition ${rgdName} would ${purpose}` },
  ]);
  // An adoption check passes whenever the instance adopts nothing: its message is never read then.
  return check.when === undefined ? message : `(${check.when}) ? ${message} : ''`;
}
