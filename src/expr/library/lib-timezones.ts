/**
 * Timestamp accessors with a time zone argument (`ts.getHours("Europe/Paris")`), as cel-go
 * reads the zone: an IANA name or a fixed offset `[+-]HH:MM`. cel-js 8 passes the zone to
 * `toLocaleString`, which on Node 20 rejects offsets, and registers the signatures itself, so
 * `ast-rewrites.ts` renames these calls to the functions below (the type checker sees the same
 * signatures).
 */
import { LibraryError, type CelEnvironment } from "../lib-support.js";

/** Accessor name → the hidden name of our implementation. */
export const TZ_ACCESSORS: ReadonlyMap<string, string> = new Map(
  [
    "getDate",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
    "getFullYear",
    "getHours",
    "getMilliseconds",
    "getMinutes",
    "getMonth",
    "getSeconds",
  ].map((name) => [name, `kroTz${name.slice(3)}`]),
);

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      throw new LibraryError("invalid_argument", `invalid time zone: ${JSON.stringify(zone)}`);
    }
    if (formatters.size > 256) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock fields of `d` in `zone`. */
export function fieldsIn(d: Date, zone: string): Fields {
  const offset = /^([+-]?)(\d{2}):(\d{2})$/.exec(zone);
  if (offset !== null) {
    const minutes = (Number(offset[2]) * 60 + Number(offset[3])) * (offset[1] === "-" ? -1 : 1);
    const s = new Date(d.getTime() + minutes * 60_000);
    return {
      year: s.getUTCFullYear(),
      month: s.getUTCMonth() + 1,
      day: s.getUTCDate(),
      hour: s.getUTCHours(),
      minute: s.getUTCMinutes(),
      second: s.getUTCSeconds(),
    };
  }
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(d)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

const dayOfYear = (f: Fields): number => (Date.UTC(f.year, f.month - 1, f.day) - Date.UTC(f.year, 0, 1)) / 86_400_000;

export function registerTimezonesLibrary(env: CelEnvironment): void {
  const TS = "google.protobuf.Timestamp";
  const accessor = (name: string, get: (f: Fields, d: Date) => number): void => {
    env.registerFunction(`${TS}.${TZ_ACCESSORS.get(name) ?? name}(string): int`, (d: Date, zone: string) =>
      BigInt(get(fieldsIn(d, zone), d)),
    );
  };
  accessor("getDate", (f) => f.day);
  accessor("getDayOfMonth", (f) => f.day - 1);
  accessor("getDayOfWeek", (f) => new Date(Date.UTC(f.year, f.month - 1, f.day)).getUTCDay());
  accessor("getDayOfYear", dayOfYear);
  accessor("getFullYear", (f) => f.year);
  accessor("getHours", (f) => f.hour);
  accessor("getMilliseconds", (_f, d) => d.getUTCMilliseconds());
  accessor("getMinutes", (f) => f.minute);
  accessor("getMonth", (f) => f.month - 1);
  accessor("getSeconds", (f) => f.second);
}
