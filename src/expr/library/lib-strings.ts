/**
 * cel-go ext.Strings pieces cel-js lacks (charAt, replace, reverse, format, strings.quote) and
 * those it builds in with other semantics, registered under our own names (see the maps below).
 * cel-js' join, startsWith, endsWith, contains and size already agree with cel-go.
 */
import { formatString } from "../string-format.js";
import { declareNamespace, type CelEnvironment, type LibraryContext } from "../lib-support.js";
import { indexOf, lastIndexOf, replace, split, substring } from "./code-points.js";

/** Code-point aware helpers: CEL strings index by code point, not UTF-16 unit. */
const codePoints = (s: string): string[] => Array.from(s);

/**
 * cel-js builds in lowerAscii, upperAscii and trim with JavaScript's Unicode-wide rules; cel-go
 * changes ASCII letters only and trims Go's unicode.IsSpace set. The AST pass (ast-rewrites.ts)
 * renames calls of these methods (name/arity) to ours, as for `matches`.
 */
export const ASCII_STRING_METHODS: ReadonlyMap<string, string> = new Map([
  ["lowerAscii/0", "kroLowerAscii"],
  ["upperAscii/0", "kroUpperAscii"],
  ["trim/0", "kroTrim"],
]);

/**
 * cel-js builds in indexOf, lastIndexOf, substring and split counting UTF-16 units; cel-go counts
 * code points (`"😀ab".substring(2)` is "b", not "ab"). Calls are renamed to ours the same way.
 * The Kubernetes list methods indexOf/lastIndexOf share the names, so they are registered under
 * ours too (lib-k8s-basic.ts).
 */
export const INDEX_OF = "kroIndexOf";
export const LAST_INDEX_OF = "kroLastIndexOf";
export const CODE_POINT_STRING_METHODS: ReadonlyMap<string, string> = new Map([
  ["indexOf/1", INDEX_OF],
  ["indexOf/2", INDEX_OF],
  ["lastIndexOf/1", LAST_INDEX_OF],
  ["lastIndexOf/2", LAST_INDEX_OF],
  ["substring/1", "kroSubstring"],
  ["substring/2", "kroSubstring"],
  ["split/1", "kroSplit"],
  ["split/2", "kroSplit"],
]);

/** Go's unicode.IsSpace. */
const GO_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, "g");

export function registerStringsLibrary(env: CelEnvironment, lib: LibraryContext): void {
  env.registerFunction("string.kroLowerAscii(): string", (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase()));
  env.registerFunction("string.kroUpperAscii(): string", (s: string) => s.replace(/[a-z]+/g, (m) => m.toUpperCase()));
  env.registerFunction("string.kroTrim(): string", (s: string) => s.replace(TRIM, ""));
  env.registerFunction(`string.${INDEX_OF}(string): int`, (s: string, sub: string) => indexOf(s, sub));
  env.registerFunction(`string.${INDEX_OF}(string, int): int`, indexOf);
  env.registerFunction(`string.${LAST_INDEX_OF}(string): int`, (s: string, sub: string) => lastIndexOf(s, sub));
  env.registerFunction(`string.${LAST_INDEX_OF}(string, int): int`, lastIndexOf);
  env.registerFunction("string.kroSubstring(int): string", (s: string, start: bigint) => substring(s, start));
  env.registerFunction("string.kroSubstring(int, int): string", substring);
  // As cel-js' own split: the result's size is charged after the call (instrument.ts).
  env.registerFunction("string.kroSplit(string): list<string>", (s: string, sep: string) => split(s, sep));
  env.registerFunction("string.kroSplit(string, int): list<string>", split);
  env.registerFunction("string.charAt(int): string", (s: string, i: bigint) => {
    const cps = codePoints(s);
    if (i < 0n || i > BigInt(cps.length)) throw new Error(`index out of range: ${i}`);
    return cps[Number(i)] ?? "";
  });
  env.registerFunction("string.replace(string, string): string", (s: string, from: string, to: string) => {
    lib.charge(s.length);
    // Charge the result's size before building it: few matches times a long replacement is huge.
    lib.charge(Math.ceil(matches(s, from) * to.length * 0.1));
    return replace(s, from, to);
  });
  env.registerFunction(
    "string.replace(string, string, int): string",
    (s: string, from: string, to: string, n: bigint) => {
      lib.charge(s.length);
      lib.charge(Math.ceil(Math.min(matches(s, from), n < 0n ? Infinity : Number(n)) * to.length * 0.1));
      return replace(s, from, to, n);
    },
  );
  env.registerFunction("string.reverse(): string", (s: string) => codePoints(s).reverse().join(""));
  env.registerFunction("string.format(list): string", (s: string, args: unknown[]) => {
    lib.charge(s.length + args.length);
    return formatString(s, args);
  });
  const strings = declareNamespace(env, "strings");
  env.registerFunction(`${strings}.quote(string): string`, (_ns: unknown, s: string) => quote(s));
}

/** How many times `replace` may insert: an empty `from` matches around every code point. */
const matches = (s: string, from: string): number =>
  from === "" ? codePoints(s).length + 1 : s.split(from).length - 1;

/** strings.quote: a double-quoted CEL string literal with Go-style escapes. */
export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case "\x07":
        out += "\\a";
        break;
      case "\b":
        out += "\\b";
        break;
      case "\f":
        out += "\\f";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\v":
        out += "\\v";
        break;
      case "\\":
        out += "\\\\";
        break;
      case '"':
        out += '\\"';
        break;
      default:
        out += ch;
    }
  }
  return out + '"';
}
