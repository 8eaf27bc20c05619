/**
 * Helm's fromToml: BurntSushi/toml's Unmarshal into map[string]interface{} — integers int64,
 * floats float64, date-times time.Time, arrays []interface{}, tables maps — and on a syntax
 * error a map holding only `Error` (the message is smol-toml's, worded differently from Go's).
 */
import { createRequire } from "node:module";
import { timeObject } from "../sprig/index.js";
import { int64, type GoMap, type GoValue } from "../go/index.js";

// Loaded on the first fromToml (CommonJS build, one copy: the instanceof checks below need it).
const load = createRequire(import.meta.url);
let smolToml: typeof import("smol-toml") | undefined;
const toml = (): typeof import("smol-toml") => (smolToml ??= load("smol-toml") as typeof import("smol-toml"));

function convert(v: unknown): GoValue {
  if (typeof v === "bigint") return int64(v);
  if (v instanceof toml().TomlDate) {
    // Local dates and times have no offset: Go's decoder puts them in time.Local, which is UTC here.
    const ms = v.getTime();
    return timeObject({ ns: BigInt(Number.isFinite(ms) ? ms : 0) * 1_000_000n, offset: 0, zone: "UTC" });
  }
  if (Array.isArray(v)) return v.map(convert);
  if (typeof v === "object" && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, convert(e)]));
  return v as GoValue;
}

export function fromToml(text: string): GoMap {
  try {
    return convert(toml().parse(text, { integersAsBigInt: true })) as GoMap;
  } catch (e) {
    if (e instanceof toml().TomlError) return { Error: `toml: ${e.message.split("\n")[0] ?? ""}` };
    throw e;
  }
}
