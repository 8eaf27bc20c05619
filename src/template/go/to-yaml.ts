/**
 * Helm's toYaml: sigs.k8s.io/yaml.Marshal (JSON round trip, then go-yaml v2 emission) with the
 * trailing newline trimmed. A small emitter that follows go-yaml v2's choices: sorted keys,
 * sequences not indented under map keys, integral numbers as integers, strings that would read
 * as another type double-quoted, other unsafe strings single-quoted, multi-line strings as
 * literal blocks. (The shared `yaml` library belongs to the loaders; see architecture.md.)
 */
import { formatFloat } from "./number-format.js";
import { jsonFloat } from "./go-json.js";
import { GoObject } from "./go-object.js";
import { GoInt, Iface, isMap, sortedKeys } from "./values.js";

const YAML11_SPECIAL = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~|\.inf|\.Inf|\.INF|-\.inf|-\.Inf|-\.INF|\.nan|\.NaN|\.NAN)$/;
const NUMBER_LIKE = /^[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?$|^[-+]?0[xX][0-9a-fA-F_]+$|^[-+]?0b[01_]+$|^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** go-yaml's is_printable (v2 and v3 alike): no tab, no 4-byte characters such as emoji. */
function printable(cp: number, _pretty: boolean): boolean {
  if (cp === 0x0a || (cp >= 0x20 && cp <= 0x7e)) return true;
  if (cp >= 0xa0 && cp <= 0xd7ff) return true;
  return cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff;
}

function hasNonPrintable(s: string, pretty: boolean): boolean {
  for (const ch of s) if (!printable(ch.codePointAt(0) ?? 0, pretty)) return true;
  return false;
}

const YAML_ESCAPES: Record<number, string> = {
  0x00: "0", 0x07: "a", 0x08: "b", 0x09: "t", 0x0a: "n", 0x0b: "v", 0x0c: "f", 0x0d: "r", 0x1b: "e",
  0x22: '"', 0x5c: "\\", 0x85: "N", 0xa0: "_", 0x2028: "L", 0x2029: "P",
};

/** go-yaml's double-quoted scalar: its own escapes (\0, \N, \_, \xXX, \uXXXX, \UXXXXXXXX). */
function doubleQuoted(s: string, pretty: boolean): string {
  let out = '"';
  let afterBom = false; // go-yaml also escapes the character that follows a BOM
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    const breakChar = cp === 0x0a || cp === 0x0d || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
    const plain = printable(cp, pretty) && !breakChar && cp !== 0x22 && cp !== 0x5c && cp !== 0xfeff && !afterBom;
    afterBom = cp === 0xfeff;
    if (plain) {
      out += ch;
      continue;
    }
    const esc = YAML_ESCAPES[cp];
    if (esc !== undefined) out += `\\${esc}`;
    else if (cp <= 0xff) out += `\\x${cp.toString(16).toUpperCase().padStart(2, "0")}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).toUpperCase().padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).toUpperCase().padStart(8, "0")}`;
  }
  return `${out}"`;
}

/**
 * go-yaml v2 folds long plain and single-quoted values: at a space, once the line is past column
 * 80, the space becomes a line break plus the continuation indent (v3, toYamlPretty, does not).
 */
function fold(text: string, column: number, indent: string, single: boolean): string {
  let out = "";
  let col = column;
  let prevSpace = false;
  const chars = Array.from(text);
  chars.forEach((ch, i) => {
    if (ch === " ") {
      const next = chars[i + 1];
      const inside = !single || (i > 1 && i < chars.length - 2);
      if (!prevSpace && col > 80 && next !== undefined && next !== " " && inside) {
        out += `\n${indent}`;
        col = indent.length;
      } else {
        out += ch;
        col++;
      }
      prevSpace = true;
    } else {
      out += ch;
      col++;
      prevSpace = false;
    }
  });
  return out;
}

/** Where a value scalar starts and how its folded lines are indented (keys never fold). */
interface Place { readonly column: number; readonly indent: string }

/** go-yaml's parseTimestamp layouts: a string that would read back as a timestamp is quoted. */
const TIMESTAMP_LIKE = /^\d{4}-\d{1,2}-\d{1,2}(?:(?:[Tt]|[ \t]+)\d{1,2}:\d{1,2}:\d{1,2}(?:\.\d*)?(?:[ \t]*(?:Z|[-+]\d{1,2}(?::?\d{2})?))?)?$/;

function scalarString(s: string, pretty: boolean, place?: Place): string {
  if (hasNonPrintable(s, pretty)) return doubleQuoted(s, pretty);
  if (s === "" || YAML11_SPECIAL.test(s) || NUMBER_LIKE.test(s) || TIMESTAMP_LIKE.test(s)) return doubleQuoted(s, pretty);
  const unsafe =
    /^[-?:,[\]{}#&*!|>'"%@` ]/.test(s) && !/^[-?:][^ ,[\]{}]/.test(s) ||
    / $/.test(s) || /: |:$| #/.test(s) || /^[-?:]$/.test(s) || /^---|^\.\.\./.test(s);
  const text = unsafe ? `'${s.replaceAll("'", "''")}'` : s;
  return place === undefined || pretty ? text : fold(text, place.column, place.indent, unsafe);
}

function scalar(v: unknown, pretty: boolean, place?: Place): string | undefined {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return String(v);
  if (v instanceof GoInt) return v.value.toString();
  if (typeof v === "number") {
    const json = jsonFloat(v);
    if (json === undefined) return undefined;
    return /^-?\d+$/.test(json) ? json : formatFloat(v, "g", -1);
  }
  if (typeof v === "string" && (!v.includes("\n") || !blockAllowed(v, pretty))) {
    return v.includes("\n") ? doubleQuoted(v, pretty) : scalarString(v, pretty, place);
  }
  return undefined;
}

/** go-yaml refuses a literal block for special characters, a trailing space or a space before a break. */
const blockAllowed = (s: string, pretty: boolean): boolean => !hasNonPrintable(s, pretty) && !/ $| \n/.test(s);

function literalBlock(s: string, indent: string): string {
  const chomp = s.endsWith("\n\n") || s === "\n" ? "+" : s.endsWith("\n") ? "" : "-";
  const indicator = /^[ \t\n\r]/.test(s) ? "2" : "";
  const body = (s.endsWith("\n") ? s.slice(0, -1) : s).split("\n").map((l) => (l === "" ? "" : indent + l));
  return `|${indicator}${chomp}\n${body.join("\n")}`;
}

/** `pretty`: go-yaml v3 with SetIndent(2) (toYamlPretty), which indents sequences under their key. */
function emit(v: unknown, indent: string, pretty = false, place?: Place): string {
  if (v instanceof Iface) return emit(v.inner, indent, pretty, place);
  if (v instanceof GoObject) return emit(v.spec.json?.() ?? null, indent, pretty, place);
  if (typeof v === "string" && v.includes("\n") && blockAllowed(v, pretty)) return literalBlock(v, `${indent}  `);
  const s = scalar(v, pretty, place);
  if (s !== undefined) return s;
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    const inner = `${indent}  `;
    return v.map((e) => `${indent}- ${emit(e instanceof Iface ? e.inner : e, inner, pretty, { column: inner.length, indent: inner })}`).join("\n").slice(indent.length);
  }
  if (isMap(v)) {
    const keys = sortedKeys(v);
    if (keys.length === 0) return "{}";
    return keys.map((k) => {
      const key = scalarString(k, pretty);
      return `${indent}${key}:${emitValueAfterKey(v[k], indent, pretty, indent.length + Array.from(key).length + 2)}`;
    }).join("\n").slice(indent.length);
  }
  return "null";
}

function emitValueAfterKey(v: unknown, indent: string, pretty: boolean, column: number): string {
  let inner = v instanceof Iface ? v.inner : v;
  if (inner instanceof GoObject) inner = inner.spec.json?.() ?? null;
  if (Array.isArray(inner) && inner.length > 0) {
    return pretty ? `\n${indent}  ${emit(inner, `${indent}  `, pretty)}` : `\n${indent}${emit(inner, indent, pretty)}`;
  }
  if (isMap(inner) && Object.keys(inner).length > 0) return `\n${indent}  ${emit(inner, `${indent}  `, pretty)}`;
  return ` ${emit(inner, indent, pretty, { column, indent: `${indent}  ` })}`;
}

/** Helm's toYamlPretty: go-yaml v3, indent 2, trailing newline trimmed ("" on failure). */
export function toYamlPretty(v: unknown): string {
  try {
    return emit(v, "", true);
  } catch {
    return "";
  }
}

class RoundTripFailure extends Error {}

/**
 * sigs.k8s.io/yaml's JSON round trip, seen from the strings: JSON leaves DEL, U+FFFE/U+FFFF
 * and lone surrogates raw, which the YAML reader then rejects (toYaml gives ""), and a raw NEL
 * (U+0085) inside a quoted JSON string reads back as a folded line break, i.e. a space.
 */
function roundTrip(v: unknown): unknown {
  const u = v instanceof Iface ? v.inner : v instanceof GoObject ? (v.spec.json?.() ?? null) : v;
  const str = (s: string): string => {
    if (/[\u007f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)) throw new RoundTripFailure();
    return s.replaceAll("\u0085", " ");
  };
  if (typeof u === "string") return str(u);
  if (Array.isArray(u)) return u.map(roundTrip);
  if (isMap(u)) return Object.fromEntries(Object.entries(u).map(([k, e]) => [str(k), roundTrip(e)]));
  return u;
}

/** toYaml: the YAML text without its final newline ("" when marshalling fails, as in Helm). */
export function toYaml(v: unknown): string {
  try {
    return emit(roundTrip(v), "");
  } catch {
    return "";
  }
}
