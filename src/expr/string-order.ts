/**
 * CEL's order of strings: by Unicode code point, as cel-go compares Go strings (byte-wise UTF-8,
 * which orders as code points). JavaScript's `<` compares UTF-16 code units, which puts an astral
 * character (a surrogate pair, 0xD800–0xDFFF) below U+E000–U+FFFF; cel-go puts it above.
 */

/**
 * Maps a UTF-16 unit so that unit order is code-point order: surrogates move above U+FFFF's unit
 * and U+E000–U+FFFF move down into the gap. At the first unit where two well-formed strings
 * differ, both units are then ordered as their code points (two surrogates there are both high,
 * or both low after the same high one).
 */
const fixUp = (u: number): number => (u >= 0xe000 ? u - 0x800 : u >= 0xd800 ? u + 0x2000 : u);

/** Negative, zero or positive as `a` sorts before, with or after `b` in cel-go. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixUp(x) - fixUp(y);
  }
  return a.length - b.length;
}
