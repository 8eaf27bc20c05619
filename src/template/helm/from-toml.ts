/**
 * Helm's fromToml: BurntSushi/toml's Unmarshal into map[string]interface{} — integers int64,
 * floats float64, date-times time.Time, arrays []interface{}, tables maps — and on a syntax
 * error a map holding only `Error` (the message is smol-toml's, worded differently from Go's).
 */
import { parse, TomlDate, TomlError } from "smol-toml";
import { timeObject } from "../sprig/index.js";
import { int64, type GoMap, type GoValue } from "../go/index.js";

function convert(v: unknown): GoValue {
  if (typeof v === "bigint") return int64(v);
  if (v instanceof TomlDate) {
    // Local dates and times have no offset: Go's decoder puts them in time.Local, which is UTC here.
    const ms = v.getTime();
    return timeObject({ ns: BigInt(Number.isFinite(ms) ? ms : 0) * 1_000_000n, offset: 0, zone: "UTC" });
  }
  if (Array.isArray(v)) return v.map(convert);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, convert(e)]));
  return v as GoValue;
}

export function fromToml(text: string): GoMap {
  try {
    return convert(parse(text, { integersAsBigInt: true })) as GoMap;
  } catch (e) {
    if (e instanceof TomlError) return { Error: `toml: ${e.message.split("\n")[0] ?? ""}` };
    throw e;
  }
}
