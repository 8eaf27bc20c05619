/**
 * encoding/json's Marshal for template values (Sprig's toJson): sorted map keys, HTML-safe
 * escaping of <, > and &, and Go's float formatting (1e+21 → 1e+21, 1e-7 → 1e-7, 0.5 → 0.5).
 */
import { GoObject } from "./go-object.js";
import { formatFloat } from "./number-format.js";
import { GoInt, Iface, isMap, sortedKeys, type GoValue } from "./values.js";

export function jsonFloat(f: number): string | undefined {
  if (!Number.isFinite(f)) return undefined;
  const abs = Math.abs(f);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    return formatFloat(f, "e", -1).replace(/e([+-])0(\d)$/, "e$1$2");
  }
  return formatFloat(f, "f", -1);
}

export function jsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || ch === "<" || ch === ">" || ch === "&" || c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** json.Marshal; undefined when Go would fail (NaN/Inf), which Sprig's toJson turns into "". */
export function marshalJson(v: unknown): string | undefined {
  if (v instanceof Iface) return marshalJson(v.inner);
  if (v instanceof GoObject) {
    const j = v.spec.json?.() ?? null;
    if (v.spec.kind !== "struct" || !isMap(j)) return marshalJson(j);
    // encoding/json writes struct fields in declaration order, not sorted.
    const parts: string[] = [];
    for (const [k, e] of Object.entries(j)) {
      const m = marshalJson(e);
      if (m === undefined) return undefined;
      parts.push(`${jsonString(k)}:${m}`);
    }
    return `{${parts.join(",")}}`;
  }
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return jsonString(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return jsonFloat(v);
  if (v instanceof GoInt) return v.value.toString();
  if (Array.isArray(v)) {
    const parts = v.map((e) => marshalJson(e));
    return parts.includes(undefined) ? undefined : `[${parts.join(",")}]`;
  }
  if (isMap(v)) {
    const parts: string[] = [];
    for (const k of sortedKeys(v)) {
      const e = marshalJson(v[k]);
      if (e === undefined) return undefined;
      parts.push(`${jsonString(k)}:${e}`);
    }
    return `{${parts.join(",")}}`;
  }
  return undefined;
}

/** json.Unmarshal into interface{}: numbers are float64; undefined on a syntax error. */
export function unmarshalJson(s: string): GoValue | undefined {
  try {
    return JSON.parse(s) as GoValue;
  } catch {
    return undefined;
  }
}

/** encoding/json's quoteChar. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const q = JSON.stringify(c).slice(1, -1).replace(/\\u00([0-9a-f]{2})/g, "\\x$1");
  return `'${q}'`;
}

class JsonSyntax extends Error {}

/** The error json.Unmarshal reports for text that is not JSON (its scanner's wording), or "" when it is valid. */
export function jsonSyntaxError(text: string): string {
  const s = Array.from(text);
  let i = 0;
  const fail = (what: string): never => {
    if (i >= s.length) throw new JsonSyntax("unexpected end of JSON input");
    throw new JsonSyntax(`invalid character ${quoteChar(s[i] ?? "")} ${what}`);
  };
  const space = (): void => {
    while (i < s.length && /^[ \t\r\n]$/.test(s[i] ?? "")) i++;
  };
  const digits = (): number => {
    const start = i;
    while (i < s.length && /^[0-9]$/.test(s[i] ?? "")) i++;
    return i - start;
  };
  const literal = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (s[i] !== word[k]) fail(`in literal ${word} (expecting ${quoteChar(word[k] ?? "")})`);
    }
    i++;
  };
  const str = (): void => {
    i++;
    for (;;) {
      const c = s[i];
      if (c === undefined) return fail("");
      if (c === '"') { i++; return; }
      if (c === "\\") {
        i++;
        const e = s[i];
        if (e === "u") {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!/^[0-9a-fA-F]$/.test(s[i] ?? "")) fail("in \\u hexadecimal character escape");
          }
        } else if (e === undefined || !'"\\/bfnrt'.includes(e)) fail("in string escape code");
        i++;
        continue;
      }
      if ((c.codePointAt(0) ?? 0) < 0x20) fail("in string literal");
      i++;
    }
  };
  const num = (): void => {
    if (s[i] === "-") {
      i++;
      if (!/^[0-9]$/.test(s[i] ?? "")) fail("in numeric literal");
    }
    if (s[i] === "0") i++;
    else digits();
    if (s[i] === ".") {
      i++;
      if (digits() === 0) fail("after decimal point in numeric literal");
    }
    if (s[i] === "e" || s[i] === "E") {
      i++;
      if (s[i] === "+" || s[i] === "-") i++;
      if (digits() === 0) fail("in exponent of numeric literal");
    }
  };
  const value = (): void => {
    space();
    const c = s[i];
    if (c === "{") {
      i++;
      space();
      if (s[i] === "}") { i++; return; }
      for (;;) {
        space();
        if (s[i] !== '"') fail("looking for beginning of object key string");
        str();
        space();
        if (s[i] !== ":") fail("after object key");
        i++;
        value();
        space();
        if (s[i] === ",") { i++; continue; }
        if (s[i] === "}") { i++; return; }
        fail("after object key:value pair");
      }
    }
    if (c === "[") {
      i++;
      space();
      if (s[i] === "]") { i++; return; }
      for (;;) {
        value();
        space();
        if (s[i] === ",") { i++; continue; }
        if (s[i] === "]") { i++; return; }
        fail("after array element");
      }
    }
    if (c === '"') str();
    else if (c === "-" || (c !== undefined && /^[0-9]$/.test(c))) num();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else fail("looking for beginning of value");
  };
  try {
    value();
    space();
    if (i < s.length) fail("after top-level value");
  } catch (e) {
    if (e instanceof JsonSyntax) return e.message;
    throw e;
  }
  return "";
}
