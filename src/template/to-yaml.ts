/**
 * Helm's toYaml: sigs.k8s.io/yaml.Marshal (JSON round trip, then go-yaml v2 emission) with the
 * trailing newline trimmed. A small emitter that follows go-yaml v2's choices: sorted keys,
 * sequences not indented under map keys, integral numbers as integers, strings that would read
 * as another type double-quoted, other unsafe strings single-quoted, multi-line strings as
 * literal blocks. (The shared `yaml` library belongs to the loaders; see architecture.md.)
 */
import { goQuote } from "./go-quote.js";
import { formatFloat } from "./number-format.js";
import { jsonFloat } from "./go-json.js";
import { GoObject } from "./go-object.js";
import { GoInt, Iface, isMap, sortedKeys } from "./values.js";

const YAML11_SPECIAL = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~|\.inf|\.Inf|\.INF|-\.inf|-\.Inf|-\.INF|\.nan|\.NaN|\.NAN)$/;
const NUMBER_LIKE = /^[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?$|^[-+]?0[xX][0-9a-fA-F_]+$|^[-+]?0b[01_]+$|^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** Characters go-yaml will not write unescaped (it switches to a double-quoted scalar). */
function hasNonPrintable(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || c === 0x7f || c === 0x85 || c === 0x2028 || c === 0x2029 || c === 0xfeff) return true;
  }
  return false;
}

/** go-yaml's parseTimestamp layouts: a string that would read back as a timestamp is quoted. */
const TIMESTAMP_LIKE = /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]|[ \t]+)\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d{1,2}(?::?\d{2})?))?)?$/;

function scalarString(s: string): string {
  if (s === "" || YAML11_SPECIAL.test(s) || NUMBER_LIKE.test(s) || TIMESTAMP_LIKE.test(s)) return goQuote(s);
  if (hasNonPrintable(s) || s.includes("\t")) return goQuote(s);
  const unsafe =
    /^[-?:,[\]{}#&*!|>'"%@`\s]/.test(s) && !/^[-?:][^\s,[\]{}]/.test(s) ||
    /\s$/.test(s) || /: |:$| #|\t/.test(s) || /^[-?:]$/.test(s) || /^---|^\.\.\./.test(s);
  return unsafe ? `'${s.replaceAll("'", "''")}'` : s;
}

function scalar(v: unknown): string | undefined {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return String(v);
  if (v instanceof GoInt) return v.value.toString();
  if (typeof v === "number") {
    const json = jsonFloat(v);
    if (json === undefined) return undefined;
    return /^-?\d+$/.test(json) ? json : formatFloat(v, "g", -1);
  }
  if (typeof v === "string" && !v.includes("\n")) return scalarString(v);
  return undefined;
}

function literalBlock(s: string, indent: string): string {
  const chomp = s.endsWith("\n\n") || s === "\n" ? "+" : s.endsWith("\n") ? "" : "-";
  const indicator = /^[ \t\n\r]/.test(s) ? "2" : "";
  const body = (s.endsWith("\n") ? s.slice(0, -1) : s).split("\n").map((l) => (l === "" ? "" : indent + l));
  return `|${indicator}${chomp}\n${body.join("\n")}`;
}

/** `pretty`: go-yaml v3 with SetIndent(2) (toYamlPretty), which indents sequences under their key. */
function emit(v: unknown, indent: string, pretty = false): string {
  if (v instanceof Iface) return emit(v.inner, indent, pretty);
  if (v instanceof GoObject) return emit(v.spec.json?.() ?? null, indent, pretty);
  if (typeof v === "string" && v.includes("\n")) return literalBlock(v, `${indent}  `);
  const s = scalar(v);
  if (s !== undefined) return s;
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return v.map((e) => `${indent}- ${emit(e instanceof Iface ? e.inner : e, `${indent}  `, pretty)}`).join("\n").slice(indent.length);
  }
  if (isMap(v)) {
    const keys = sortedKeys(v);
    if (keys.length === 0) return "{}";
    return keys.map((k) => `${indent}${scalarString(k)}:${emitValueAfterKey(v[k], indent, pretty)}`).join("\n").slice(indent.length);
  }
  return "null";
}

function emitValueAfterKey(v: unknown, indent: string, pretty: boolean): string {
  let inner = v instanceof Iface ? v.inner : v;
  if (inner instanceof GoObject) inner = inner.spec.json?.() ?? null;
  if (Array.isArray(inner) && inner.length > 0) {
    return pretty ? `\n${indent}  ${emit(inner, `${indent}  `, pretty)}` : `\n${indent}${emit(inner, indent, pretty)}`;
  }
  if (isMap(inner) && Object.keys(inner).length > 0) return `\n${indent}  ${emit(inner, `${indent}  `, pretty)}`;
  return ` ${emit(inner, indent, pretty)}`;
}

/** Helm's toYamlPretty: go-yaml v3, indent 2, trailing newline trimmed ("" on failure). */
export function toYamlPretty(v: unknown): string {
  try {
    return emit(v, "", true);
  } catch {
    return "";
  }
}

/** toYaml: the YAML text without its final newline ("" when marshalling fails, as in Helm). */
export function toYaml(v: unknown): string {
  try {
    return emit(v, "");
  } catch {
    return "";
  }
}
