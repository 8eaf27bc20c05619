/**
 * Helm's toToml: BurntSushi/toml's Encoder on a template value. Plain keys first (sorted), then
 * sub-tables as `[a.b]` and arrays of tables as `[[a]]`, nested ones indented two spaces per
 * level; floats always carry a fraction (`1.0`); nil values are skipped. An unencodable value
 * returns the encoder's error text, as Helm does.
 */
import { jsonString } from "./go-json.js";
import { GoObject } from "./go-object.js";
import { formatFloat } from "./number-format.js";
import { GoInt, Iface, isMap, sortedKeys, type GoMap } from "./values.js";

class TomlError extends Error {}

const plain = (v: unknown): unknown => {
  const u = v instanceof Iface ? v.inner : v;
  return u instanceof GoObject ? (u.spec.json?.() ?? null) : u;
};

function key(k: string): string {
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k);
}

function tomlString(s: string): string {
  // TOML basic strings: Go-style escapes, but <, > and & stay as they are.
  return jsonString(s).replace(/\\u003c/g, "<").replace(/\\u003e/g, ">").replace(/\\u0026/g, "&").replace(/\\u007f/g, "\\u007f");
}

function inline(v: unknown): string {
  const u = plain(v);
  if (typeof u === "string") return tomlString(u);
  if (typeof u === "boolean") return String(u);
  if (u instanceof GoInt) return u.value.toString();
  if (typeof u === "number") {
    if (Number.isNaN(u)) return "nan";
    if (!Number.isFinite(u)) return u > 0 ? "inf" : "-inf";
    const s = formatFloat(u, "f", -1);
    return s.includes(".") ? s : `${s}.0`;
  }
  if (Array.isArray(u)) return `[${u.filter((e) => plain(e) !== null).map(inline).join(", ")}]`;
  if (isMap(u)) return `{${sortedKeys(u).filter((k) => plain(u[k]) !== null).map((k) => `${key(k)} = ${inline(u[k])}`).join(", ")}}`;
  throw new TomlError("toml: cannot encode a nil value");
}

const isTable = (v: unknown): boolean => isMap(plain(v));
const isTableArray = (v: unknown): boolean => {
  const u = plain(v);
  return Array.isArray(u) && u.length > 0 && u.every((e) => isMap(plain(e)));
};

function table(m: GoMap, path: string[], depth: number, out: string[]): void {
  const pad = "  ".repeat(Math.max(0, depth - 1));
  const keys = sortedKeys(m).filter((k) => plain(m[k]) !== null);
  for (const k of keys) if (!isTable(m[k]) && !isTableArray(m[k])) out.push(`${pad}${key(k)} = ${inline(m[k])}\n`);
  for (const k of keys) {
    const v = plain(m[k]);
    const sub = [...path, key(k)];
    const subPad = "  ".repeat(depth);
    if (isMap(v)) {
      if (out.length > 0) out.push("\n");
      out.push(`${subPad}[${sub.join(".")}]\n`);
      table(v, sub, depth + 1, out);
    } else if (isTableArray(v)) {
      for (const e of v as unknown[]) {
        if (out.length > 0) out.push("\n");
        out.push(`${subPad}[[${sub.join(".")}]]\n`);
        table(plain(e) as GoMap, sub, depth + 1, out);
      }
    }
  }
}

export function toToml(v: unknown): string {
  const u = plain(v);
  if (!isMap(u)) return "toml: top-level values must be Go maps or structs";
  const out: string[] = [];
  try {
    table(u, [], 0, out);
  } catch (e) {
    if (e instanceof TomlError) return e.message;
    throw e;
  }
  return out.join("");
}
