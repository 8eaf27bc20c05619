/**
 * cel-go ext.Strings pieces cel-js lacks: charAt, replace, reverse, format, strings.quote,
 * lastIndexOf is built in. cel-js already has indexOf, substring, split, join, trim, lower/upperAscii.
 */
import { formatString } from "../string-format.js";
import { declareNamespace, type CelEnvironment, type LibraryContext } from "../lib-support.js";

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

/** Go's unicode.IsSpace. */
const GO_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, "g");

export function registerStringsLibrary(env: CelEnvironment, lib: LibraryContext): void {
  env.registerFunction("string.kroLowerAscii(): string", (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase()));
  env.registerFunction("string.kroUpperAscii(): string", (s: string) => s.replace(/[a-z]+/g, (m) => m.toUpperCase()));
  env.registerFunction("string.kroTrim(): string", (s: string) => s.replace(TRIM, ""));
  env.registerFunction("string.charAt(int): string", (s: string, i: bigint) => {
    const cps = codePoints(s);
    if (i < 0n || i > BigInt(cps.length)) throw new Error(`index out of range: ${i}`);
    return cps[Number(i)] ?? "";
  });
  env.registerFunction("string.replace(string, string): string", (s: string, from: string, to: string) => {
    lib.charge(s.length);
    const parts = s.split(from);
    // Charge the result's size before building it: few matches times a long replacement is huge.
    lib.charge(Math.ceil((parts.length - 1) * to.length * 0.1));
    return parts.join(to);
  });
  env.registerFunction(
    "string.replace(string, string, int): string",
    (s: string, from: string, to: string, n: bigint) => {
      lib.charge(s.length);
      const parts = s.split(from);
      lib.charge(Math.ceil(Math.min(parts.length - 1, n < 0n ? Infinity : Number(n)) * to.length * 0.1));
      if (n < 0n) return parts.join(to);
      const limit = Math.min(Number(n), parts.length - 1);
      return (
        parts.slice(0, limit + 1).join(to) + (limit < parts.length - 1 ? from + parts.slice(limit + 1).join(from) : "")
      );
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
