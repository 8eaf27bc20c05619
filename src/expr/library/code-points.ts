/**
 * cel-go ext.Strings' indexing functions, which count Unicode code points (Go runes) where
 * JavaScript counts UTF-16 units: indexOf, lastIndexOf, substring, split and replace, each
 * following cel-go v0.23's code (ext/strings.go) and Go's strings.SplitN / strings.Replace,
 * including their edge cases (an empty needle answers the offset; an offset past the end is -1,
 * not an error; an empty separator splits into code points; an empty `from` inserts between them).
 *
 * Strings here are well-formed UTF-16: values from the cluster went through jsonToCel, which turns
 * lone surrogates into U+FFFD as Go's JSON decoding does, CEL literals cannot spell a surrogate,
 * and these functions cut only at code-point boundaries. So a UTF-16 search for a well-formed
 * needle finds exactly the matches a search by runes finds, and only the indices need converting.
 */
import { LibraryError } from "../lib-support.js";

/** Whether a string has a surrogate pair, i.e. its units and its code points are counted apart. */
const HAS_SURROGATE = /[\uD800-\uDFFF]/;

export const codePointLength = (s: string): number => (HAS_SURROGATE.test(s) ? Array.from(s).length : s.length);

/** The UTF-16 index where code point `i` starts (`i` at most the code-point length). */
function unitIndex(s: string, i: number): number {
  if (!HAS_SURROGATE.test(s)) return i;
  let unit = 0;
  for (let cp = 0; cp < i; cp++) unit += (s.codePointAt(unit) ?? 0) > 0xffff ? 2 : 1;
  return unit;
}

/** The code-point index of UTF-16 index `u` (a code-point boundary). */
const codePointIndex = (s: string, u: number): number => codePointLength(s.slice(0, u));

const outOfRange = (i: bigint | number): LibraryError =>
  new LibraryError("index_out_of_range", `index out of range: ${i}`);

export function indexOf(s: string, sub: string, offset = 0n): bigint {
  if (sub === "") return offset;
  if (offset < 0n) throw outOfRange(offset);
  const length = codePointLength(s);
  if (offset >= BigInt(length)) return -1n;
  const found = s.indexOf(sub, unitIndex(s, Number(offset)));
  return found < 0 ? -1n : BigInt(codePointIndex(s, found));
}

export function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const length = codePointLength(s);
  if (offset === undefined) {
    if (sub === "") return BigInt(length);
    offset = BigInt(length - 1);
  }
  if (sub === "") return offset;
  if (offset < 0n) throw outOfRange(offset);
  if (offset >= BigInt(length)) return -1n;
  // The last start that leaves room for the needle; none when the needle is longer than s.
  const start = Math.min(Number(offset), length - codePointLength(sub));
  if (start < 0) return -1n;
  const found = s.lastIndexOf(sub, unitIndex(s, start));
  return found < 0 ? -1n : BigInt(codePointIndex(s, found));
}

export function substring(s: string, start: bigint, end?: bigint): string {
  const length = BigInt(codePointLength(s));
  if (end !== undefined && start > end)
    throw new LibraryError("index_out_of_range", `invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > length) throw outOfRange(start);
  if (end !== undefined && (end < 0n || end > length)) throw outOfRange(end);
  const from = unitIndex(s, Number(start));
  return end === undefined ? s.slice(from) : s.slice(from, unitIndex(s, Number(end)));
}

/** Go's strings.SplitN: n < 0 all parts, n = 0 none, else at most n (the last keeps the rest). */
export function split(s: string, sep: string, n = -1n): string[] {
  if (n === 0n) return [];
  const parts = sep === "" ? Array.from(s) : s.split(sep);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const keep = Number(n) - 1;
  return [...parts.slice(0, keep), parts.slice(keep).join(sep)];
}

/**
 * Go's strings.Replace: at most n replacements (n < 0: all). An empty `from` matches before every
 * code point and at the end, so "ab" → "XaXbX".
 */
export function replace(s: string, from: string, to: string, n = -1n): string {
  if (n === 0n || from === to) return s;
  if (from !== "") {
    const parts = s.split(from);
    const limit = n < 0n ? parts.length - 1 : Math.min(Number(n), parts.length - 1);
    const head = parts.slice(0, limit + 1).join(to);
    return limit < parts.length - 1 ? head + from + parts.slice(limit + 1).join(from) : head;
  }
  const cps = Array.from(s);
  const count = n < 0n || n > BigInt(cps.length + 1) ? cps.length + 1 : Number(n);
  let out = "";
  for (let i = 0; i < count; i++) out += (i > 0 ? (cps[i - 1] ?? "") : "") + to;
  return out + cps.slice(count - 1).join("");
}
