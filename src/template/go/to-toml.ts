/**
 * Helm's toToml: BurntSushi/toml v1.5's Encoder on a template value. Plain keys first, then
 * sub-tables (`[a.b]`) and arrays of tables (`[[a]]`), each group sorted; keys and headers are
 * indented two spaces per nesting level; a blank line precedes top-level tables and every array
 * table entry; floats always carry a fraction (`1.0`); nil values are skipped. A value TOML cannot
 * hold returns the encoder's error text, as Helm does.
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

const bareKey = (k: string): string => (/^[A-Za-z0-9_-]+$/.test(k) ? k : tomlString(k));

function tomlString(s: string): string {
  // Basic strings with Go-style escapes; <, > and & stay as they are.
  return jsonString(s).replace(/\\u003c/g, "<").replace(/\\u003e/g, ">").replace(/\\u0026/g, "&");
}

function element(v: unknown): string {
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
  if (Array.isArray(u)) return `[${u.filter((e) => plain(e) !== null).map(element).join(", ")}]`;
  if (isMap(u)) return `{${sortedKeys(u).filter((k) => plain(u[k]) !== null).map((k) => `${bareKey(k)} = ${element(u[k])}`).join(", ")}}`;
  throw new TomlError("toml: cannot encode a nil value");
}

const isTableArray = (u: unknown): boolean => Array.isArray(u) && u.length > 0 && u.every((e) => isMap(plain(e)));
const isTableLike = (v: unknown): boolean => isMap(plain(v)) || isTableArray(plain(v));

class TomlWriter {
  out = "";
  private newline(): void {
    if (this.out !== "") this.out += "\n";
  }
  private indent(depth: number): string {
    return "  ".repeat(Math.max(0, depth));
  }
  map(m: GoMap, key: readonly string[]): void {
    const keys = sortedKeys(m).filter((k) => plain(m[k]) !== null);
    for (const k of keys.filter((x) => !isTableLike(m[x]))) {
      this.out += `${this.indent(key.length)}${bareKey(k)} = ${element(m[k])}`;
      this.newline();
    }
    for (const k of keys.filter((x) => isTableLike(m[x]))) {
      const v = plain(m[k]);
      const sub = [...key, bareKey(k)];
      if (isMap(v)) this.table(v, sub);
      else for (const e of v as unknown[]) this.arrayTable(plain(e) as GoMap, sub);
    }
  }
  private table(m: GoMap, key: readonly string[]): void {
    if (key.length === 1) this.newline();
    this.out += `${this.indent(key.length - 1)}[${key.join(".")}]`;
    this.newline();
    this.map(m, key);
  }
  private arrayTable(m: GoMap, key: readonly string[]): void {
    this.newline();
    this.out += `${this.indent(key.length - 1)}[[${key.join(".")}]]`;
    this.newline();
    this.map(m, key);
  }
}

export function toToml(v: unknown): string {
  const u = plain(v);
  try {
    if (!isMap(u)) return element(u);
    const w = new TomlWriter();
    w.map(u, []);
    return w.out;
  } catch (e) {
    if (e instanceof TomlError) return e.message;
    throw e;
  }
}
