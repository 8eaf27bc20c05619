/**
 * Go's time.Time as Sprig's date functions use it: an instant (nanoseconds since the Unix epoch)
 * with a zone (name and offset), Go's layout-based Format and Parse ("2006-01-02T15:04:05Z07:00"),
 * and Time.String(). Zones: UTC, fixed offsets, and IANA names through Intl (the offset is exact;
 * the abbreviation is Intl's, which for some zones differs from Go's tzdata, e.g. "GMT+9" for JST).
 * "Local" is UTC: renders must not depend on the machine they run on.
 */
export interface GoTime {
  /** Nanoseconds since 1970-01-01T00:00:00Z. */
  readonly ns: bigint;
  readonly offset: number; // seconds east of UTC
  readonly zone: string;
}

const NS = 1_000_000_000n;
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

export const ZERO_TIME: GoTime = { ns: -62135596800n * NS, offset: 0, zone: "UTC" };

export function unixTime(seconds: bigint): GoTime {
  return { ns: seconds * NS, offset: 0, zone: "UTC" };
}

const floorDiv = (a: bigint, b: bigint): bigint => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/** The wall clock of `t` in its zone. */
function fields(t: GoTime): { year: number; month: number; day: number; hour: number; min: number; sec: number; nsec: number; weekday: number; yday: number } {
  const localNs = t.ns + BigInt(t.offset) * NS;
  const secs = floorDiv(localNs, NS);
  const nsec = Number(localNs - secs * NS);
  const d = new Date(Number(secs) * 1000);
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  const startDate = new Date(start);
  startDate.setUTCFullYear(d.getUTCFullYear());
  return {
    year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), min: d.getUTCMinutes(),
    sec: d.getUTCSeconds(), nsec, weekday: d.getUTCDay(), yday: Math.floor((d.getTime() - startDate.getTime()) / 86_400_000) + 1,
  };
}

/** Moves `t` into an IANA zone (or "UTC"/"Local"); undefined when the zone is unknown. */
export function inZone(t: GoTime, zone: string): GoTime | undefined {
  if (zone === "UTC" || zone === "Local" || zone === "") return { ns: t.ns, offset: 0, zone: "UTC" };
  let parts: Intl.DateTimeFormatPart[];
  try {
    const ms = Number(floorDiv(t.ns, 1_000_000n));
    parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(new Date(ms));
    const abbr = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "short" }).formatToParts(new Date(ms)).find((p) => p.type === "timeZoneName")?.value ?? zone;
    const off = parts.find((p) => p.type === "timeZoneName")?.value ?? "GMT";
    const m = /GMT([+-])(\d{2}):(\d{2})/.exec(off);
    const offset = m === null ? 0 : (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60);
    return { ns: t.ns, offset, zone: abbr };
  } catch {
    return undefined;
  }
}

const pad = (n: number, w: number): string => String(Math.abs(n)).padStart(w, "0");

/** The layout elements Go recognises, longest first where prefixes overlap. */
const STD = ["January", "Jan", "Monday", "Mon", "MST", "2006", "06", "01", "1", "002", "02", "_2", "2", "__2", "15", "03", "3", "04", "4", "05", "5", "PM", "pm",
  "Z070000", "Z07:00:00", "Z0700", "Z07:00", "Z07", "-070000", "-07:00:00", "-0700", "-07:00", "-07"];

/** Go's nextStdChunk: splits a layout into literal text and elements. */
export function layoutChunks(layout: string): { lit: string; std: string }[] {
  const out: { lit: string; std: string }[] = [];
  let lit = "";
  let i = 0;
  outer: while (i < layout.length) {
    // Fractional seconds: .000 / ,999 (a run of one digit not followed by another digit).
    const frac = /^[.,](0+|9+)(?![0-9])/.exec(layout.slice(i));
    if (frac !== null) {
      out.push({ lit, std: frac[0] });
      lit = "";
      i += frac[0].length;
      continue;
    }
    for (const s of ["January", "Jan", "Monday", "Mon", "MST", "2006", "002", "__2", "_2", "Z07:00:00", "Z070000", "Z07:00", "Z0700", "Z07", "-07:00:00", "-070000", "-07:00", "-0700", "-07",
      "01", "02", "03", "04", "05", "06", "15", "PM", "pm", "1", "2", "3", "4", "5"]) {
      if (!layout.startsWith(s, i)) continue;
      if ((s === "Jan" || s === "Mon") && /^[a-z]/.test(layout.slice(i + 3))) continue;
      if (s === "January" || s === "Monday" || STD.includes(s)) {
        out.push({ lit, std: s });
        lit = "";
        i += s.length;
        continue outer;
      }
    }
    lit += layout.charAt(i);
    i++;
  }
  out.push({ lit, std: "" });
  return out;
}

function zoneOffset(offset: number, std: string): string {
  if (offset === 0 && std.startsWith("Z")) return "Z";
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const h = pad(Math.floor(abs / 3600), 2);
  const m = pad(Math.floor((abs % 3600) / 60), 2);
  const s = pad(abs % 60, 2);
  const kind = std.replace(/^Z/, "-");
  switch (kind) {
    case "-07": return sign + h;
    case "-0700": return sign + h + m;
    case "-07:00": return `${sign}${h}:${m}`;
    case "-070000": return sign + h + m + s;
    default: return `${sign}${h}:${m}:${s}`;
  }
}

/** time.Time.Format. */
export function formatTime(t: GoTime, layout: string): string {
  const f = fields(t);
  let out = "";
  for (const { lit, std } of layoutChunks(layout)) {
    out += lit;
    switch (std) {
      case "": break;
      case "2006": out += f.year < 0 ? `-${pad(f.year, 4)}` : pad(f.year, 4); break;
      case "06": out += pad(f.year % 100, 2); break;
      case "January": out += MONTHS[f.month - 1] ?? ""; break;
      case "Jan": out += (MONTHS[f.month - 1] ?? "").slice(0, 3); break;
      case "01": out += pad(f.month, 2); break;
      case "1": out += String(f.month); break;
      case "Monday": out += DAYS[f.weekday] ?? ""; break;
      case "Mon": out += (DAYS[f.weekday] ?? "").slice(0, 3); break;
      case "02": out += pad(f.day, 2); break;
      case "_2": out += String(f.day).padStart(2, " "); break;
      case "2": out += String(f.day); break;
      case "002": out += pad(f.yday, 3); break;
      case "__2": out += String(f.yday).padStart(3, " "); break;
      case "15": out += pad(f.hour, 2); break;
      case "03": out += pad(f.hour % 12 === 0 ? 12 : f.hour % 12, 2); break;
      case "3": out += String(f.hour % 12 === 0 ? 12 : f.hour % 12); break;
      case "04": out += pad(f.min, 2); break;
      case "4": out += String(f.min); break;
      case "05": out += pad(f.sec, 2); break;
      case "5": out += String(f.sec); break;
      case "PM": out += f.hour >= 12 ? "PM" : "AM"; break;
      case "pm": out += f.hour >= 12 ? "pm" : "am"; break;
      case "MST": out += t.zone === "" ? zoneOffset(t.offset, "-0700") : t.zone; break;
      default:
        if (/^[.,]/.test(std)) {
          const digits = std.length - 1;
          const s = pad(f.nsec, 9).slice(0, digits);
          out += std.charAt(1) === "9" ? (/[1-9]/.test(s) ? std.charAt(0) + s.replace(/0+$/, "") : "") : std.charAt(0) + s;
        } else out += zoneOffset(t.offset, std);
    }
  }
  return out;
}

/** time.Time.String(): "2006-01-02 15:04:05.999999999 -0700 MST". */
export function timeString(t: GoTime): string {
  return formatTime(t, "2006-01-02 15:04:05.999999999 -0700 MST");
}
