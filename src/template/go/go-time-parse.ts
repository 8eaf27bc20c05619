/**
 * Go's time.Parse for the layouts charts use with Sprig's toDate/mustToDate: numeric and named
 * date parts, 12/24-hour clocks, fractional seconds, "Z"/numeric offsets and zone abbreviations,
 * with Go's error texts (`parsing time "x" as "2006-01-02": cannot parse "x" as "2006"`). A time
 * without an offset is in "Local", which this engine fixes to UTC.
 */
import { layoutChunks, type GoTime } from "./go-time.js";

export class TimeParseError extends Error {}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const q = (s: string): string => JSON.stringify(s);

export function parseTime(layout: string, value: string): GoTime {
  const fail = (rest: string, elem: string, msg = ""): never => {
    throw new TimeParseError(`parsing time ${q(value)} as ${q(layout)}: cannot parse ${q(rest)} as ${q(elem)}${msg}`);
  };
  let v = value;
  let year = 1;
  let month = 1;
  let day = 1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let pm: boolean | undefined;
  let offset: number | undefined;
  let zone: string | undefined;
  const num = (elem: string, min: number, max: number): number => {
    const m = new RegExp(`^\\d{${min},${max}}`).exec(v);
    if (m === null) return fail(v, elem);
    v = v.slice(m[0].length);
    return Number(m[0]);
  };
  const name = (elem: string, names: readonly string[]): number => {
    const i = names.findIndex((n) => v.toLowerCase().startsWith(n.toLowerCase()));
    if (i < 0) return fail(v, elem);
    v = v.slice((names[i] ?? "").length);
    return i;
  };
  const fraction = (): void => {
    const m = /^[.,](\d+)/.exec(v);
    if (m !== null) {
      nsec = Number((m[1] ?? "").slice(0, 9).padEnd(9, "0"));
      v = v.slice(m[0].length);
    }
  };
  for (const { lit, std } of layoutChunks(layout)) {
    if (!v.startsWith(lit)) fail(v, lit);
    v = v.slice(lit.length);
    switch (std) {
      case "": break;
      case "2006": year = num(std, 4, 4); break;
      case "06": { const y = num(std, 2, 2); year = y >= 69 ? 1900 + y : 2000 + y; break; }
      case "January": month = name(std, MONTHS) + 1; break;
      case "Jan": month = name(std, MONTHS.map((m) => m.slice(0, 3))) + 1; break;
      case "01": month = num(std, 2, 2); break;
      case "1": month = num(std, 1, 2); break;
      case "Monday": name(std, DAYS); break;
      case "Mon": name(std, DAYS.map((d) => d.slice(0, 3))); break;
      case "02": day = num(std, 2, 2); break;
      case "_2": if (v.startsWith(" ")) v = v.slice(1); day = num(std, 1, 2); break;
      case "2": day = num(std, 1, 2); break;
      case "15": hour = num(std, 2, 2); break;
      case "03": hour = num(std, 2, 2); break;
      case "3": hour = num(std, 1, 2); break;
      case "04": min = num(std, 2, 2); break;
      case "4": min = num(std, 1, 2); break;
      case "05": sec = num(std, 2, 2); fraction(); break;
      case "5": sec = num(std, 1, 2); fraction(); break;
      case "PM": case "pm": {
        const m = /^(AM|PM|am|pm)/.exec(v);
        if (m === null) fail(v, std);
        pm = (m?.[1] ?? "").toUpperCase() === "PM";
        v = v.slice(2);
        break;
      }
      case "MST": {
        const m = /^(UTC|[A-Z]{3,5})/.exec(v);
        if (m === null) return fail(v, std);
        zone = m[1];
        v = v.slice((m[1] ?? "").length);
        break;
      }
      default: {
        if (/^[.,]/.test(std)) { fraction(); break; }
        if (std.startsWith("Z") && v.startsWith("Z")) { v = v.slice(1); offset = 0; zone = "UTC"; break; }
        const m = /^([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?/.exec(v);
        if (m === null) return fail(v, std);
        offset = (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0));
        v = v.slice(m[0].length);
      }
    }
  }
  if (v !== "") throw new TimeParseError(`parsing time ${q(value)}: extra text: ${q(v)}`);
  if (pm !== undefined) hour = pm ? (hour % 12) + 12 : hour % 12;
  const range = (what: string): never => { throw new TimeParseError(`parsing time ${q(value)}: ${what} out of range`); };
  if (month < 1 || month > 12) range("month");
  const daysIn = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) ? 1 : 0);
  if (day < 1 || day > daysIn) range("day");
  if (hour > 23) range("hour");
  if (min > 59) range("minute");
  if (sec > 59) range("second");
  const d = new Date(Date.UTC(2000, month - 1, day, hour, min, sec));
  d.setUTCFullYear(year);
  const off = offset ?? 0;
  const ns = BigInt(d.getTime() / 1000 - off) * 1_000_000_000n + BigInt(nsec);
  if (offset === undefined) return { ns, offset: 0, zone: zone ?? "UTC" };
  return { ns, offset: off, zone: zone ?? (off === 0 ? "UTC" : "") };
}
