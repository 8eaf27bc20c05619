/**
 * Checks that a `pattern=` marker is a valid Go (RE2) regular expression, as kro requires and as
 * the API server enforces. JS RegExp is close but not equal, so we translate the RE2-only syntax
 * (`(?P<n>`, inline flags, `\A`, `\z`, `\Q..\E`, POSIX classes) and reject what RE2 lacks
 * (look-around, back-references) before letting the JS engine judge the rest. An approximation:
 * a few exotic forms may be judged differently; the API server remains the final authority.
 */

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z", alpha: "A-Za-z", ascii: "\\x00-\\x7F", blank: "\\t ", cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9", graph: "!-~", lower: "a-z", print: " -~", punct: "!-\\/:-@\\[-`{-~", space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z", word: "0-9A-Za-z_", xdigit: "0-9A-Fa-f",
};

/** Returns an error message, or undefined when the pattern compiles. */
export function checkGoRegexp(pattern: string): string | undefined {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? "";
    if (c === "\\") {
      const next = pattern[i + 1];
      if (next === undefined) return "trailing backslash at end of expression";
      if (/[1-9]/.test(next)) return `invalid escape sequence: \\${next} (back-references are not supported)`;
      if (next === "A") out += "^";
      else if (next === "z") out += "$";
      else if (next === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        const literal = pattern.slice(i + 2, end < 0 ? undefined : end);
        out += literal.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
        i = end < 0 ? pattern.length : end + 1;
        continue;
      } else out += c + next;
      i++;
      continue;
    }
    if (!inClass && c === "[") {
      inClass = true;
      out += c;
      // A `]` right after `[` or `[^` is a literal member, not the end of the class.
      const skip = pattern.startsWith("^]", i + 1) ? 2 : pattern[i + 1] === "]" ? 1 : 0;
      out += skip === 0 ? "" : pattern.slice(i + 1, i + 1 + skip).replace("]", "\\]");
      i += skip;
      continue;
    }
    if (inClass && c === "]") inClass = false;
    if (inClass && c === "[" && pattern.startsWith("[:", i)) {
      const end = pattern.indexOf(":]", i + 2);
      const name = end < 0 ? "" : pattern.slice(i + 2, end).replace(/^\^/, "");
      const cls = POSIX_CLASSES[name];
      if (cls === undefined) return `invalid character class range: ${pattern.slice(i, end < 0 ? undefined : end + 2)}`;
      out += pattern[i + 2] === "^" ? `^${cls}` : cls; // only meaningful inside a bracket expression
      i = end + 1;
      continue;
    }
    if (!inClass && c === "(" && pattern[i + 1] === "?") {
      const rest = pattern.slice(i + 2);
      if (/^(=|!|<=|<!)/.test(rest)) return `invalid or unsupported Perl syntax: (?${rest.slice(0, rest.startsWith("<") ? 2 : 1)}`;
      const named = /^P?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
      if (named) {
        out += `(?<${named[1] ?? ""}>`;
        i += 1 + named[0].length;
        continue;
      }
      const flags = /^([imsU-]*)([:)])/.exec(rest);
      if (flags) {
        // Inline flags only change matching, not validity: drop them, keep the grouping.
        out += flags[2] === ":" ? "(?:" : "";
        i += 1 + flags[0].length;
        continue;
      }
      return `invalid or unsupported Perl syntax: (?${rest.slice(0, 1)}`;
    }
    out += c;
  }
  try {
    new RegExp(out);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : "invalid regular expression";
  }
}
