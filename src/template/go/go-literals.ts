/**
 * Go's literal syntax as text/template reads it: strconv.Unquote for "…", `…` and '…', and
 * strconv.ParseInt/ParseUint/ParseFloat with base prefixes and underscores, so numbers such as
 * 0x1F, 0o17, 1_000 and 0x1p-2 mean exactly what they mean in Go.
 */
import { goQuote } from "./go-quote.js";

/** A number literal's value, as parse.NumberNode holds it (IsInt, IsFloat, IsComplex, Int64, Float64). */
export interface NumberValue {
  readonly isInt: boolean;
  readonly isFloat: boolean;
  readonly isComplex: boolean;
  readonly int: bigint;
  readonly float: number;
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** Go's underscoreOK: underscores only between digits or after a base prefix. */
function underscoreOK(s: string): boolean {
  let saw = "^";
  let i = 0;
  if (s.startsWith("+") || s.startsWith("-")) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "bBoOxX".includes(s[1] ?? "")) {
    i = 2;
    saw = "0";
    hex = s[1] === "x" || s[1] === "X";
  }
  for (; i < s.length; i++) {
    const c = s[i] ?? "";
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) {
      saw = "0";
      continue;
    }
    if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

/** strconv.ParseInt/ParseUint(s, 0, 64): the value, or undefined on syntax or range error. */
export function parseGoInteger(text: string, unsigned: boolean): bigint | undefined {
  let s = text;
  let neg = false;
  if (s.startsWith("+") || s.startsWith("-")) {
    if (unsigned) return undefined;
    neg = s.startsWith("-");
    s = s.slice(1);
  }
  let base = 10;
  let digits = s;
  if (s.length >= 2 && s[0] === "0") {
    const p = (s[1] ?? "").toLowerCase();
    if (p === "x") [base, digits] = [16, s.slice(2)];
    else if (p === "o") [base, digits] = [8, s.slice(2)];
    else if (p === "b") [base, digits] = [2, s.slice(2)];
    else [base, digits] = [8, s.slice(1)];
  }
  if (s.includes("_") && !underscoreOK(text)) return undefined;
  digits = digits.replaceAll("_", "");
  const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[base];
  if (digits === "" || valid === undefined || !valid.test(digits)) return undefined;
  const prefix = { 2: "0b", 8: "0o", 10: "", 16: "0x" }[base] ?? "";
  let v = BigInt(prefix + digits);
  if (neg) v = -v;
  if (unsigned ? v > UINT64_MAX : v < INT64_MIN || v > INT64_MAX) return undefined;
  return v;
}

/** strconv.ParseFloat(s, 64): the value, or undefined on a syntax or range error. */
export function parseGoFloat(text: string): number | undefined {
  let s = text;
  let sign = 1;
  if (s.startsWith("+") || s.startsWith("-")) {
    sign = s.startsWith("-") ? -1 : 1;
    s = s.slice(1);
  }
  if (s.includes("_")) {
    if (!underscoreOK(text)) return undefined;
    s = s.replaceAll("_", "");
  }
  let v: number;
  const hex = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(s);
  if (hex) {
    const [, whole = "", frac = "", exp = "0"] = hex;
    if (whole + frac === "") return undefined;
    const mant = BigInt(`0x${whole}${frac}`);
    v = Number(mant) * 2 ** (Number(exp) - 4 * frac.length);
  } else {
    if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(s)) return undefined;
    v = Number(s);
  }
  if (!Number.isFinite(v)) return undefined;
  return sign * v;
}

const simpleEscapes: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\" };

/** strconv.UnquoteChar: one (possibly escaped) character and the rest, or undefined. */
export function unquoteChar(s: string, quote: string): { value: string; tail: string } | undefined {
  const first = s.codePointAt(0);
  if (first === undefined) return undefined;
  const c = String.fromCodePoint(first);
  if (c === quote && (quote === "'" || quote === '"')) return undefined;
  if (c !== "\\") return { value: c, tail: s.slice(c.length) };
  const e = s[1];
  if (e === undefined) return undefined;
  const simple = simpleEscapes[e];
  if (simple !== undefined) return { value: simple, tail: s.slice(2) };
  if (e === "'" || e === '"') return e === quote ? { value: e, tail: s.slice(2) } : undefined;
  const hexLen = e === "x" ? 2 : e === "u" ? 4 : e === "U" ? 8 : 0;
  if (hexLen > 0) {
    const h = s.slice(2, 2 + hexLen);
    if (!new RegExp(`^[0-9a-fA-F]{${hexLen}}$`).test(h)) return undefined;
    const n = parseInt(h, 16);
    if (e === "x") return { value: String.fromCharCode(n), tail: s.slice(2 + hexLen) }; // a byte
    if (n > 0x10ffff || (n >= 0xd800 && n < 0xe000)) return undefined;
    return { value: String.fromCodePoint(n), tail: s.slice(2 + hexLen) };
  }
  if (e >= "0" && e <= "7") {
    const o = s.slice(1, 4);
    if (!/^[0-7]{3}$/.test(o) || parseInt(o, 8) > 255) return undefined;
    return { value: String.fromCharCode(parseInt(o, 8)), tail: s.slice(4) };
  }
  return undefined;
}

/** strconv.Unquote for "…", `…`; undefined means Go's "invalid syntax". */
export function goUnquote(s: string): string | undefined {
  if (s.length < 2) return undefined;
  const q = s[0];
  if (q !== s[s.length - 1]) return undefined;
  const body = s.slice(1, -1);
  if (q === "`") return body.includes("`") ? undefined : body.replaceAll("\r", "");
  if (q !== '"' && q !== "'") return undefined;
  if (body.includes("\n")) return undefined;
  let out = "";
  let rest = body;
  while (rest.length > 0) {
    const r = unquoteChar(rest, q);
    if (r === undefined) return undefined;
    out += r.value;
    rest = r.tail;
  }
  return out;
}

/** parse.newNumber: a number token's value, or Go's error text. */
export function parseNumber(text: string, isChar: boolean, isComplex: boolean): NumberValue | string {
  if (isChar) {
    const r = unquoteChar(text.slice(1), "'");
    if (r === undefined) return "invalid syntax";
    if (r.tail !== "'") return `malformed character constant: ${text}`;
    const code = r.value.codePointAt(0) ?? 0;
    return { isInt: true, isFloat: true, isComplex: false, int: BigInt(code), float: code };
  }
  if (isComplex || text.endsWith("i")) return { isInt: false, isFloat: false, isComplex: true, int: 0n, float: 0 };
  const u = parseGoInteger(text, true);
  const i = parseGoInteger(text, false);
  let isInt = i !== undefined;
  let int = i ?? 0n;
  let isFloat = isInt || u !== undefined;
  let float = i !== undefined ? Number(i) : Number(u ?? 0n);
  if (!isFloat) {
    const f = parseGoFloat(text);
    if (f !== undefined) {
      if (!/[.eEpP]/.test(text)) return `integer overflow: ${goQuote(text)}`;
      isFloat = true;
      float = f;
      if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) {
        isInt = true;
        int = BigInt(f);
      }
    }
  }
  if (!isInt && !isFloat) return `illegal number syntax: ${goQuote(text)}`;
  // A value that fits uint64 but not int64 is reported at execution ("overflows int").
  return { isInt, isFloat, isComplex: false, int, float };
}
