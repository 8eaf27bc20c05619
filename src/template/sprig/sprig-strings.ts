/**
 * Sprig's string, encoding and regular-expression functions, with Sprig's Go signatures (so
 * argument type errors read as in Go) and Sprig's argument order (`trimPrefix PREFIX STRING`).
 */
import { createHash } from "node:crypto";
import { compileGoRegexpCached, GoRegexpSyntaxError, type GoRegexp } from "../../schema/index.js";
import {
  chargeChars,
  formatValue,
  FuncError,
  goFunc,
  goQuote,
  runes,
  stringSlice,
  strval,
  type FuncMap,
  type GoValue,
} from "../go/index.js";

const spec = { minus: false, plus: false, sharp: false, space: false, zero: false };
const GO_SPACE =
  /^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+|[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+$/g;

/** Go's strings.Title word separators. */
function isSeparator(ch: string): boolean {
  if (/^[A-Za-z0-9_]$/.test(ch)) return false;
  if (ch.charCodeAt(0) < 0x80) return true;
  if (/^[\p{L}\p{N}]$/u.test(ch)) return false;
  return /^\s$/u.test(ch);
}

/** strings.Title: upper-cases the first letter of each word. */
function title(s: string): string {
  let prev = " ";
  let out = "";
  for (const ch of s) {
    out += isSeparator(prev) ? ch.toUpperCase() : ch;
    prev = ch;
  }
  return out;
}

function b64decode(s: string): string {
  const clean = /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0;
  if (!clean) {
    let i = 0;
    while (i < s.length && /[A-Za-z0-9+/]/.test(s[i] ?? "")) i++;
    const at = s.length % 4 !== 0 && i === s.length ? s.length - (s.length % 4) : i;
    return `illegal base64 data at input byte ${at}`;
  }
  return new TextDecoder().decode(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)));
}

function b64encode(s: string): string {
  let bin = "";
  for (const b of new TextEncoder().encode(s)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Go's regexp (RE2, linear time) through schema's wrapper; undefined when the pattern is invalid. */
function compile(re: string): GoRegexp | undefined {
  try {
    return compileGoRegexpCached(re);
  } catch (e) {
    if (e instanceof GoRegexpSyntaxError) return undefined;
    throw e;
  }
}

/** indent/nindent pad every line: the result's size is known before it is built. */
function chargeIndent(n: bigint, s: string): void {
  if (n <= 0n) return;
  let lines = 1;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) lines++;
  chargeChars(s.length + Number(n) * lines, "an indented string");
}

export const sprigStringFuncs: FuncMap = {
  quote: goFunc(
    [],
    (...a: GoValue[]) =>
      a
        .filter((s) => s !== null)
        .map((s) => goQuote(strval(s)))
        .join(" "),
    "any",
  ),
  squote: goFunc(
    [],
    (...a: GoValue[]) =>
      a
        .filter((s) => s !== null)
        .map((s) => `'${formatValue(s, "v", spec)}'`)
        .join(" "),
    "any",
  ),
  upper: goFunc(["string"], (s: string) => s.toUpperCase()),
  lower: goFunc(["string"], (s: string) => s.toLowerCase()),
  title: goFunc(["string"], title),
  trim: goFunc(["string"], (s: string) => s.replace(GO_SPACE, "")),
  trimPrefix: goFunc(["string", "string"], (p: string, s: string) => (s.startsWith(p) ? s.slice(p.length) : s)),
  trimSuffix: goFunc(["string", "string"], (x: string, s: string) =>
    x !== "" && s.endsWith(x) ? s.slice(0, s.length - x.length) : s,
  ),
  replace: goFunc(["string", "string", "string"], (o: string, n: string, s: string) => {
    // Every occurrence may become `n`: the largest result is the bound charged up front.
    if (n.length > o.length)
      chargeChars(
        o === "" ? (s.length + 1) * n.length : Math.floor(s.length / o.length) * (n.length - o.length),
        "a replaced string",
      );
    return o === "" ? runes(s).join(n).replace(/^/, n) + (s === "" ? "" : n) : s.split(o).join(n);
  }),
  contains: goFunc(["string", "string"], (sub: string, s: string) => s.includes(sub)),
  hasPrefix: goFunc(["string", "string"], (p: string, s: string) => s.startsWith(p)),
  hasSuffix: goFunc(["string", "string"], (p: string, s: string) => s.endsWith(p)),
  indent: goFunc(["int", "string"], (n: { value: bigint }, s: string) => {
    chargeIndent(n.value, s);
    const pad = " ".repeat(Math.max(0, Number(n.value)));
    return pad + s.replaceAll("\n", `\n${pad}`);
  }),
  nindent: goFunc(["int", "string"], (n: { value: bigint }, s: string) => {
    chargeIndent(n.value, s);
    const pad = " ".repeat(Math.max(0, Number(n.value)));
    return `\n${pad}${s.replaceAll("\n", `\n${pad}`)}`;
  }),
  b64enc: goFunc(["string"], b64encode),
  b64dec: goFunc(["string"], b64decode),
  sha256sum: goFunc(["string"], (s: string) => createHash("sha256").update(s, "utf8").digest("hex")),
  regexMatch: goFunc(["string", "string"], (re: string, s: string) => compile(re)?.test(s) ?? false),
  splitList: goFunc(["string", "string"], (sep: string, s: string) =>
    stringSlice(sep === "" ? runes(s) : s.split(sep)),
  ),
  fail: goFunc(["string"], (msg: string) => {
    throw new FuncError(msg);
  }),
};
