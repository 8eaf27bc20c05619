/**
 * Sprig's remaining string, regex, encoding and path functions (strings.go, regex.go,
 * crypto.go's hashes, functions.go's path entries), with Sprig's Go signatures. The random ones
 * live in sprig-random.ts (they draw from an Entropy port).
 */
import { createHash } from "node:crypto";
import { compileGoRegexpCached, GoRegexpSyntaxError, type GoRegexp } from "../../schema/index.js";
import {
  chargeChars,
  FuncError,
  goFunc,
  goQuote,
  sprint,
  stringSlice,
  strval,
  type FuncMap,
  type GoValue,
} from "../go/index.js";
import { abbreviateFull, initials, swapCase, toLowerCaseWords, toPascalCase, untitle, wrapCustom } from "./xstrings.js";

type GoIntArg = { value: bigint };
const n = (i: GoIntArg): number => Number(i.value);
const bytesOf = (s: string): Uint8Array => new TextEncoder().encode(s);
const utf8 = (b: Uint8Array): string => new TextDecoder().decode(b);

/** strconv.CanBackquote: no backquote and no control characters but tab. */
function canBackquote(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === "`" || ch === "\uFEFF" || (c < 0x20 && c !== 9) || c === 0x7f) return false;
  }
  return true;
}

/** regexp.MustCompile's panic, which text/template reports: "regexp: Compile(`x`): error parsing regexp: …". */
function panicCompile(re: string): GoRegexp {
  try {
    return compileGoRegexpCached(re);
  } catch (e) {
    if (e instanceof GoRegexpSyntaxError)
      throw new FuncError(`regexp: Compile(${canBackquote(re) ? `\`${re}\`` : goQuote(re)}): ${e.message}`);
    throw e;
  }
}

function mustCompile(re: string): GoRegexp {
  try {
    return compileGoRegexpCached(re);
  } catch (e) {
    if (e instanceof GoRegexpSyntaxError) throw new FuncError(e.message);
    throw e;
  }
}

/** Go's Regexp.Split. */
function regexSplit(re: GoRegexp, s: string, count: number): string[] {
  if (count === 0) return [];
  if (re.source.length > 0 && s.length === 0) return [""];
  const matches = re.findAll(s, count);
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of matches) {
    if (count > 0 && out.length === count - 1) break;
    end = m.start;
    if (m.end === 0) continue;
    out.push(s.slice(beg, end));
    beg = m.end;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function b32enc(s: string): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytesOf(s)) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31] ?? "";
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31] ?? "";
  while (out.length % 8 !== 0) out += "=";
  return out;
}
function b32dec(s: string): string {
  const clean = s.replace(/=+$/, "");
  if (s.length % 8 !== 0) return `illegal base32 data at input byte ${s.length - (s.length % 8)}`;
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (let i = 0; i < clean.length; i++) {
    const v = B32.indexOf(clean.charAt(i));
    if (v < 0) return `illegal base32 data at input byte ${i}`;
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return utf8(Uint8Array.from(bytes));
}

function adler32(s: string): number {
  let a = 1;
  let b = 0;
  for (const x of bytesOf(s)) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** Go's path.Clean. */
export function cleanPath(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
    } else out.push(part);
  }
  const joined = out.join("/");
  return rooted ? `/${joined}` : joined === "" ? "." : joined;
}
function basePath(p: string): string {
  if (p === "") return ".";
  const t = p.replace(/\/+$/, "");
  if (t === "") return "/";
  return t.slice(t.lastIndexOf("/") + 1);
}
function dirPath(p: string): string {
  const i = p.lastIndexOf("/");
  return cleanPath(p.slice(0, i + 1));
}
function extPath(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== "/"; i--) if (p[i] === ".") return p.slice(i);
  return "";
}

/** Go's strings.Trim(s, cutset). */
function trimCutset(s: string, cutset: string): string {
  const set = new Set(cutset);
  const cs = Array.from(s);
  let a = 0;
  let b = cs.length;
  while (a < b && set.has(cs[a] ?? "")) a++;
  while (b > a && set.has(cs[b - 1] ?? "")) b--;
  return cs.slice(a, b).join("");
}

/** Go's strings.SplitN. */
function splitN(s: string, sep: string, count: number): string[] {
  if (count === 0) return [];
  const parts = sep === "" ? Array.from(s) : s.split(sep);
  if (count < 0 || parts.length <= count) return parts;
  return [...parts.slice(0, count - 1), parts.slice(count - 1).join(sep)];
}
const indexMap = (parts: string[]): Record<string, string> => Object.fromEntries(parts.map((p, i) => [`_${i}`, p]));

export const sprigTextFuncs: FuncMap = {
  hello: goFunc([], () => "Hello!"),
  abbrev: goFunc(["int", "string"], (w: GoIntArg, s: string) => (n(w) < 4 ? s : abbreviateFull(s, 0, n(w)))),
  abbrevboth: goFunc(["int", "int", "string"], (l: GoIntArg, r: GoIntArg, s: string) =>
    n(r) < 4 || (n(l) > 0 && n(r) < 7) ? s : abbreviateFull(s, n(l), n(r)),
  ),
  trunc: goFunc(["int", "string"], (c: GoIntArg, s: string) => {
    const k = n(c);
    const len = bytesOf(s).length;
    if (k < 0 && len + k > 0) return utf8(bytesOf(s).slice(len + k));
    if (k >= 0 && len > k) return utf8(bytesOf(s).slice(0, k));
    return s;
  }),
  untitle: goFunc(["string"], untitle),
  substr: goFunc(["int", "int", "string"], (a: GoIntArg, b: GoIntArg, s: string) => {
    const bs = bytesOf(s);
    const start = n(a);
    const end = n(b);
    if (start < 0) {
      if (end > bs.length || end < 0)
        throw new FuncError(`runtime error: slice bounds out of range [:${end}] with length ${bs.length}`);
      return utf8(bs.slice(0, end));
    }
    if (end < 0 || end > bs.length) {
      if (start > bs.length) throw new FuncError(`runtime error: slice bounds out of range [${start}:${bs.length}]`);
      return utf8(bs.slice(start));
    }
    if (start > end) throw new FuncError(`runtime error: slice bounds out of range [${start}:${end}]`);
    return utf8(bs.slice(start, end));
  }),
  repeat: goFunc(["int", "string"], (c: GoIntArg, s: string) => {
    if (n(c) < 0) throw new FuncError("strings: negative Repeat count");
    chargeChars(s.length * n(c), "a repeated string");
    return s.repeat(n(c));
  }),
  trimall: goFunc(["string", "string"], (a: string, s: string) => trimCutset(s, a)),
  trimAll: goFunc(["string", "string"], (a: string, s: string) => trimCutset(s, a)),
  nospace: goFunc(["string"], (s: string) =>
    s.replace(/[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]/g, ""),
  ),
  initials: goFunc(["string"], initials),
  swapcase: goFunc(["string"], swapCase),
  snakecase: goFunc(["string"], (s: string) => toLowerCaseWords(s, "_")),
  kebabcase: goFunc(["string"], (s: string) => toLowerCaseWords(s, "-")),
  camelcase: goFunc(["string"], toPascalCase),
  wrap: goFunc(["int", "string"], (l: GoIntArg, s: string) => {
    chargeChars(s.length * 2, "a wrapped string");
    return wrapCustom(s, n(l), "", false);
  }),
  wrapWith: goFunc(["int", "string", "string"], (l: GoIntArg, sep: string, s: string) => {
    chargeChars(s.length * (1 + sep.length), "a wrapped string");
    return wrapCustom(s, n(l), sep, true);
  }),
  cat: goFunc(
    [],
    (...v: GoValue[]) => sprint(v.filter((e) => e !== null).flatMap((e, i) => (i === 0 ? [e] : [" ", e]))),
    "any",
  ),
  plural: goFunc(["string", "string", "int"], (one: string, many: string, c: GoIntArg) =>
    c.value === 1n ? one : many,
  ),
  sha1sum: goFunc(["string"], (s: string) => createHash("sha1").update(s, "utf8").digest("hex")),
  sha512sum: goFunc(["string"], (s: string) => createHash("sha512").update(s, "utf8").digest("hex")),
  adler32sum: goFunc(["string"], (s: string) => String(adler32(s))),
  b32enc: goFunc(["string"], b32enc),
  b32dec: goFunc(["string"], b32dec),
  split: goFunc(["string", "string"], (sep: string, s: string) => indexMap(sep === "" ? Array.from(s) : s.split(sep))),
  splitn: goFunc(["string", "int", "string"], (sep: string, c: GoIntArg, s: string) => indexMap(splitN(s, sep, n(c)))),
  regexFind: goFunc(["string", "string"], (re: string, s: string) => {
    return panicCompile(re).find(s)?.text ?? "";
  }),
  mustRegexFind: goFunc(["string", "string"], (re: string, s: string) => mustCompile(re).find(s)?.text ?? ""),
  regexFindAll: goFunc(["string", "string", "int"], (re: string, s: string, c: GoIntArg) => {
    return stringSlice(
      panicCompile(re)
        .findAll(s, n(c))
        .map((m) => m.text),
    );
  }),
  mustRegexFindAll: goFunc(["string", "string", "int"], (re: string, s: string, c: GoIntArg) =>
    stringSlice(
      mustCompile(re)
        .findAll(s, n(c))
        .map((m) => m.text),
    ),
  ),
  mustRegexMatch: goFunc(["string", "string"], (re: string, s: string) => mustCompile(re).test(s)),
  regexReplaceAll: goFunc(["string", "string", "string"], (re: string, s: string, repl: string) => {
    const r = panicCompile(re);
    return r.replaceAll(s, (m) => r.expand(repl, m));
  }),
  mustRegexReplaceAll: goFunc(["string", "string", "string"], (re: string, s: string, repl: string) => {
    const r = mustCompile(re);
    return r.replaceAll(s, (m) => r.expand(repl, m));
  }),
  regexReplaceAllLiteral: goFunc(["string", "string", "string"], (re: string, s: string, repl: string) => {
    return panicCompile(re).replaceAll(s, () => repl);
  }),
  mustRegexReplaceAllLiteral: goFunc(["string", "string", "string"], (re: string, s: string, repl: string) =>
    mustCompile(re).replaceAll(s, () => repl),
  ),
  regexSplit: goFunc(["string", "string", "int"], (re: string, s: string, c: GoIntArg) => {
    return stringSlice(regexSplit(panicCompile(re), s, n(c)));
  }),
  mustRegexSplit: goFunc(["string", "string", "int"], (re: string, s: string, c: GoIntArg) =>
    stringSlice(regexSplit(mustCompile(re), s, n(c))),
  ),
  regexQuoteMeta: goFunc(["string"], (s: string) => s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&")),
  base: goFunc(["string"], basePath),
  dir: goFunc(["string"], dirPath),
  clean: goFunc(["string"], cleanPath),
  ext: goFunc(["string"], extPath),
  isAbs: goFunc(["string"], (p: string) => p.startsWith("/")),
  osBase: goFunc(["string"], basePath),
  osDir: goFunc(["string"], dirPath),
  osClean: goFunc(["string"], cleanPath),
  osExt: goFunc(["string"], extPath),
  osIsAbs: goFunc(["string"], (p: string) => p.startsWith("/")),
  toString: goFunc(["any"], (v: GoValue) => strval(v)),
};
