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
  if (v instanceof GoObject) return marshalJson(v.spec.json?.() ?? null);
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
