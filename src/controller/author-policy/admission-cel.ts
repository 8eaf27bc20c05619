/**
 * An RGD value that reads only the instance (`${schema.spec.ns.lowerAscii()}`, `team-${schema.spec.t}`)
 * rewritten as a CEL expression over the object being admitted, so the author policy can ask the
 * authorizer about the namespace and name the controller will really use instead of a
 * guess. Deliberately small: the value must use only `schema.spec.*`,
 * `schema.metadata.name|namespace`, literals, operators and a whitelist of string functions whose
 * meaning is the same in Kubernetes' CEL; anything else (another resource's data, an iterator,
 * regexes, maps) is "not translatable" and the caller checks the strictest scope instead.
 *
 * The translation is parameterised by an environment, so the same code composes nested RGDs: the
 * inner graph's `schema.spec.x` is the outer template's value for the inner instance's spec.x.
 */
import { extractExpressions } from "../../expr/index.js";

/** A CEL expression over the admitted request, valid when every guard holds. */
export interface AdmissionExpr {
  readonly cel: string;
  /** CEL booleans: the fields the expression reads are present (else it would fail at admission). */
  readonly guards: readonly string[];
}

export interface AdmissionEnv {
  /** `schema.spec.<path>`; undefined when not known at admission. */
  spec(path: readonly string[]): AdmissionExpr | undefined;
  /** `schema.metadata.name` / `.namespace`; undefined when not known at admission. */
  readonly name: AdmissionExpr | undefined;
  readonly namespace: AdmissionExpr | undefined;
}

/** The environment of an instance admitted directly: its own object and request. */
export const REQUEST_ENV: AdmissionEnv = {
  spec: (path) => ({
    cel: `object.spec${path.map((p) => `.${p}`).join("")}`,
    guards: [`object.?spec${path.map((p) => `.?${p}`).join("")}.hasValue()`],
  }),
  name: { cel: "object.metadata.name", guards: [] },
  namespace: { cel: "request.namespace", guards: [] },
};

/**
 * String methods with the same meaning in kro's CEL and the API server's (cel-go strings extension):
 * both count and order by code point (src/expr/cel-go-differential.test.ts holds ours to cel-go).
 */
const METHODS = new Set([
  "lowerAscii",
  "upperAscii",
  "trim",
  "replace",
  "substring",
  "indexOf",
  "lastIndexOf",
  "startsWith",
  "endsWith",
  "contains",
  "size",
  "charAt",
  "split",
  "join",
]);
const FUNCTIONS = new Set(["string", "int", "uint", "double", "size"]);
const LITERAL_IDENTIFIERS = new Set(["true", "false", "null"]);
const PUNCTUATION = [
  "==",
  "!=",
  "<=",
  ">=",
  "&&",
  "||",
  "(",
  ")",
  "[",
  "]",
  ",",
  "?",
  ":",
  "+",
  "-",
  "*",
  "/",
  "%",
  "<",
  ">",
  "!",
  ".",
];

type Token = { readonly kind: "ident" | "literal" | "punct"; readonly text: string };

function tokenize(source: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source.charAt(i);
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      if (source.startsWith(c.repeat(3), i)) return undefined; // triple-quoted: not worth the risk
      let j = i + 1;
      while (j < source.length && source.charAt(j) !== c) j += source.charAt(j) === "\\" ? 2 : 1;
      if (j >= source.length) return undefined;
      tokens.push({ kind: "literal", text: source.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    const number = /^(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)u?/.exec(source.slice(i));
    if (number !== null) {
      tokens.push({ kind: "literal", text: number[0] });
      i += number[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i));
    if (ident !== null) {
      // r"…" / b"…" prefixes: raw and bytes literals are not translated.
      if (
        (ident[0] === "r" || ident[0] === "b" || ident[0] === "R" || ident[0] === "B") &&
        /['"]/.test(source.charAt(i + 1))
      )
        return undefined;
      tokens.push({ kind: "ident", text: ident[0] });
      i += ident[0].length;
      continue;
    }
    const punct = PUNCTUATION.find((p) => source.startsWith(p, i));
    if (punct === undefined) return undefined; // maps, optionals (?. [?), anything unexpected
    if (punct === "?" && source.charAt(i + 1) === ".") return undefined;
    if (punct === "[" && source.charAt(i + 1) === "?") return undefined;
    tokens.push({ kind: "punct", text: punct });
    i += punct.length;
  }
  return tokens;
}

/** One CEL expression (the text between `${` and `}`) rewritten for admission; undefined: not translatable. */
export function translateExpression(source: string, env: AdmissionEnv): AdmissionExpr | undefined {
  const tokens = tokenize(source);
  if (tokens === undefined || tokens.length === 0) return undefined;
  const out: string[] = [];
  const guards: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    const previous = tokens[i - 1];
    const next = tokens[i + 1];
    const afterDot = previous?.kind === "punct" && previous.text === ".";
    if (token.kind !== "ident") {
      if (token.text === "." && next?.kind !== "ident") return undefined; // `.5`, `x.(`: not a field
      out.push(token.text);
      continue;
    }
    const called = next?.kind === "punct" && next.text === "(";
    if (afterDot) {
      // A method call or a field of a value already translated (a map from the spec).
      if (called && !METHODS.has(token.text)) return undefined;
      out.push(token.text);
      continue;
    }
    if (LITERAL_IDENTIFIERS.has(token.text)) {
      out.push(token.text);
      continue;
    }
    if (called) {
      if (!FUNCTIONS.has(token.text)) return undefined;
      out.push(token.text);
      continue;
    }
    if (token.text !== "schema") return undefined; // another resource, an iterator, a variable
    // schema.<field>(.<field>)* as far as it goes (not into a method call).
    const path: string[] = [];
    let j = i + 1;
    while (tokens[j]?.text === "." && tokens[j + 1]?.kind === "ident" && tokens[j + 2]?.text !== "(") {
      path.push((tokens[j + 1] as Token).text);
      j += 2;
    }
    const value = schemaValue(path, env);
    if (value === undefined) return undefined;
    out.push(`(${value.cel})`);
    guards.push(...value.guards);
    i = j - 1;
  }
  // Tokens need no separators: two identifiers are never adjacent in what is accepted here.
  return { cel: out.join(""), guards: [...new Set(guards)] };
}

function schemaValue(path: readonly string[], env: AdmissionEnv): AdmissionExpr | undefined {
  const [root, ...rest] = path;
  if (root === "spec" && rest.length > 0) return env.spec(rest);
  if (root === "metadata" && rest.length === 1 && rest[0] === "name") return env.name;
  if (root === "metadata" && rest.length === 1 && rest[0] === "namespace") return env.namespace;
  return undefined;
}

/**
 * A template value (`metadata.namespace`, a spec field of a nested instance) for admission: a
 * literal, one `${…}`, or a string with `${…}` parts (joined with `+`). Undefined: not translatable.
 */
export function translateValue(value: unknown, env: AdmissionEnv): AdmissionExpr | undefined {
  if (typeof value === "number" || typeof value === "boolean") return { cel: JSON.stringify(value), guards: [] };
  if (typeof value !== "string") return undefined;
  if (!value.includes("${")) return { cel: JSON.stringify(value), guards: [] };
  const extraction = extractExpressions(value);
  if (extraction.issues.length > 0) return undefined;
  if (extraction.standalone) {
    const only = extraction.segments[0];
    return only?.kind === "expression" ? translateExpression(only.source, env) : undefined;
  }
  const parts: string[] = [];
  const guards: string[] = [];
  for (const segment of extraction.segments) {
    if (segment.kind === "literal") {
      if (segment.text !== "") parts.push(JSON.stringify(segment.text));
      continue;
    }
    const translated = translateExpression(segment.source, env);
    if (translated === undefined) return undefined;
    parts.push(`string(${translated.cel})`);
    guards.push(...translated.guards);
  }
  return { cel: parts.join(" + "), guards: [...new Set(guards)] };
}
