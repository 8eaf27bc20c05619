/**
 * Ports of huandu/xstrings v1.5.0 (Sprig's camelcase → ToPascalCase, snakecase, kebabcase,
 * swapcase's sibling) and Masterminds/goutils v1.1.1 (wrap, abbrev, initials, untitle, swapcase),
 * on Unicode code points as Go's runes.
 */
const isUpper = (c: string): boolean => /^\p{Lu}$/u.test(c);
const isLower = (c: string): boolean => /^\p{Ll}$/u.test(c);
const isTitle = (c: string): boolean => /^\p{Lt}$/u.test(c);
const isSpace = (c: string): boolean =>
  /^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]$/.test(c);
const isPunct = (c: string): boolean => /^\p{P}$/u.test(c);
const isNumber = (c: string): boolean => /^\p{N}$/u.test(c);
const isAlphabet = (c: string): boolean =>
  /^\p{L}$/u.test(c) && !/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u.test(c);
const isConnector = (c: string): boolean => c === "-" || c === "_" || isSpace(c);

export function toPascalCase(str: string): string {
  const rs = Array.from(str);
  if (rs.length === 0) return "";
  let out = "";
  let i = 0;
  let r0 = "";
  let firstUpper = false;
  for (; i < rs.length; i++) {
    r0 = rs[i] ?? "";
    if (!isConnector(r0)) {
      firstUpper = isUpper(r0);
      r0 = r0.toUpperCase();
      i++;
      break;
    }
    out += r0;
  }
  if (i >= rs.length) return out + r0; // Go writes the last rune read again, connector or not
  for (; i < rs.length; i++) {
    const r1 = r0;
    r0 = rs[i] ?? "";
    if (isConnector(r0) && isConnector(r1)) {
      out += r1;
      continue;
    }
    if (isConnector(r1)) {
      firstUpper = isUpper(r0);
      r0 = r0.toUpperCase();
    } else {
      if (firstUpper) {
        if (isUpper(r0)) r0 = r0.toLowerCase();
        else firstUpper = false;
      }
      out += r1;
    }
  }
  return out + r0;
}

type WordType = "invalid" | "number" | "upper" | "alphabet" | "connector" | "punct" | "other";

/** xstrings' nextWord over code points from `at`: the word's type and end. */
function nextWord(rs: readonly string[], at: number): [WordType, number] {
  if (at >= rs.length) return ["invalid", at];
  let i = at;
  const r = rs[i++] ?? "";
  const run = (pred: (c: string) => boolean): void => {
    while (i < rs.length && pred(rs[i] ?? "")) i++;
  };
  if (isConnector(r)) {
    run(isConnector);
    return ["connector", i];
  }
  if (isPunct(r)) {
    run(isPunct);
    return ["punct", i];
  }
  if (isUpper(r)) {
    if (i >= rs.length) return ["upper", i];
    const n = rs[i] ?? "";
    if (isUpper(n)) {
      i++;
      run(isUpper);
      if (i < rs.length && isAlphabet(rs[i] ?? "")) i--;
    } else if (isAlphabet(n)) {
      i++;
      run((c) => isAlphabet(c) && !isUpper(c));
    }
    return ["upper", i];
  }
  if (isAlphabet(r)) {
    run((c) => isAlphabet(c) && !isUpper(c));
    return ["alphabet", i];
  }
  if (isNumber(r)) {
    run(isNumber);
    return ["number", i];
  }
  run((c) => !(isConnector(c) || isAlphabet(c) || isNumber(c) || isPunct(c)));
  return ["other", i];
}

function lowerWord(wt: WordType, word: string, connector: string): string {
  if (wt !== "upper" && wt !== "connector") return word;
  return Array.from(word)
    .map((c) => (isConnector(c) ? connector : isUpper(c) ? c.toLowerCase() : c))
    .join("");
}

/** xstrings' camelCaseToLowerCase (snakecase with "_", kebabcase with "-"). */
export function toLowerCaseWords(str: string, connector: string): string {
  const rs = Array.from(str);
  if (rs.length === 0) return "";
  let out = "";
  let pos = 0;
  const next = (): [WordType, string] => {
    const [t, end] = nextWord(rs, pos);
    const w = rs.slice(pos, end).join("");
    pos = end;
    return [t, w];
  };
  let [wt, word] = next();
  while (pos < rs.length) {
    if (wt !== "connector") out += lowerWord(wt, word, connector);
    const prev = wt;
    const last = word;
    [wt, word] = next();
    switch (prev) {
      case "number":
        while (wt === "alphabet" || wt === "number") {
          out += lowerWord(wt, word, connector);
          [wt, word] = next();
        }
        if (wt !== "invalid" && wt !== "punct" && wt !== "connector") out += connector;
        break;
      case "connector":
        out += lowerWord(prev, last, connector);
        break;
      case "punct":
        break;
      default: {
        if (wt !== "number") {
          if (wt !== "connector" && wt !== "punct") out += connector;
          break;
        }
        if (pos >= rs.length) break;
        const lastNum = word;
        [wt, word] = next();
        if (wt !== "alphabet") {
          out += lowerWord("number", lastNum, connector);
          if (wt !== "connector" && wt !== "punct") out += connector;
          break;
        }
        out += connector + lowerWord("number", lastNum, connector);
        while (wt === "alphabet" || wt === "number") {
          out += lowerWord(wt, word, connector);
          [wt, word] = next();
        }
        if (wt !== "invalid" && wt !== "connector" && wt !== "punct") out += connector;
      }
    }
  }
  return out + lowerWord(wt, word, connector);
}

/** goutils.SwapCase (word based: a lower-case letter after whitespace becomes title case). */
export function swapCase(str: string): string {
  // goutils title-cases a lower-case letter after whitespace; ToTitle and ToUpper agree outside digraphs.
  let out = "";
  for (const c of str) {
    if (isUpper(c) || isTitle(c)) out += c.toLowerCase();
    else if (isLower(c)) out += c.toUpperCase();
    else out += c;
  }
  return out;
}

/** goutils.Uncapitalize with whitespace delimiters. */
export function untitle(str: string): string {
  let next = true;
  let out = "";
  for (const c of str) {
    if (isSpace(c)) {
      next = true;
      out += c;
    } else if (next) {
      out += c.toLowerCase();
      next = false;
    } else out += c;
  }
  return out;
}

/** goutils.Initials: the first byte after each whitespace gap (bytewise, as goutils does). */
export function initials(str: string): string {
  let gap = true;
  let out = "";
  for (const b of new TextEncoder().encode(str)) {
    const c = String.fromCharCode(b);
    if (isSpace(c)) gap = true;
    else if (gap) {
      out += c;
      gap = false;
    }
  }
  return out;
}

/** goutils.WrapCustom (byte offsets; spaces only). */
export function wrapCustom(str: string, wrapLength: number, newLine: string, wrapLong: boolean): string {
  if (str === "") return "";
  const nl = newLine === "" ? "\n" : newLine;
  const width = Math.max(1, wrapLength);
  let offset = 0;
  let out = "";
  while (str.length - offset > width) {
    if (str[offset] === " ") {
      offset++;
      continue;
    }
    const end = width + offset + 1;
    const at = str.slice(offset, end).lastIndexOf(" ") + offset;
    if (at >= offset) {
      out += str.slice(offset, at) + nl;
      offset = at + 1;
    } else if (wrapLong) {
      out += str.slice(offset, width + offset) + nl;
      offset += width;
    } else {
      const idx = str.slice(width + offset).indexOf(" ");
      if (idx === -1) {
        out += str.slice(offset);
        offset = str.length;
      } else {
        const sp = idx + width + offset;
        out += str.slice(offset, sp) + nl;
        offset = sp + 1;
      }
    }
  }
  return out + str.slice(offset);
}

/** goutils.AbbreviateFull ("" on its argument errors, as Sprig ignores them). */
export function abbreviateFull(str: string, offsetIn: number, maxWidth: number): string {
  if (str === "") return "";
  if (maxWidth < 4) return "";
  if (str.length <= maxWidth) return str;
  let offset = Math.min(offsetIn, str.length);
  if (str.length - offset < maxWidth - 3) offset = str.length - (maxWidth - 3);
  if (offset <= 4) return `${str.slice(0, maxWidth - 3)}...`;
  if (maxWidth < 7) return "";
  if (offset + maxWidth - 3 < str.length) return `...${abbreviateFull(str.slice(offset), 0, maxWidth - 3)}`;
  return `...${str.slice(str.length - (maxWidth - 3))}`;
}
