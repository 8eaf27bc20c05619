/**
 * Go's ways of showing strings and runes in messages and output: strconv.Quote (%q) and %#U,
 * plus rune-wise splitting (Go counts, pads and truncates strings by rune).
 */
/** A string's runes (code points): Go counts and slices strings by rune where templates see it. */
export const runes = (s: string): string[] => Array.from(s);

/** Go's %#U: `U+007D '}'`. */
export function formatRune(r: number): string {
  const hex = r.toString(16).toUpperCase().padStart(4, "0");
  const printable = r >= 0x20 && r !== 0x7f && !(r >= 0x80 && r < 0xa0);
  return printable ? `U+${hex} '${String.fromCodePoint(r)}'` : `U+${hex}`;
}

/** Go's strconv.Quote (printable Unicode kept, the rest escaped). */
export function goQuote(s: string, quote = '"'): string {
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (c === 7) out += "\\a";
    else if (c === 8) out += "\\b";
    else if (c === 12) out += "\\f";
    else if (c === 10) out += "\\n";
    else if (c === 13) out += "\\r";
    else if (c === 9) out += "\\t";
    else if (c === 11) out += "\\v";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if (c === 0xfffd && ch !== "\ufffd") out += "\\ufffd";
    else if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S}\u0020]$/u.test(ch)) {
      out += c > 0xffff ? `\\U${c.toString(16).padStart(8, "0")}` : `\\u${c.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return out + quote;
}
