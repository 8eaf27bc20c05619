/**
 * Sprig's date functions (date.go) over go/go-time.ts. `now` is the one clock read, from the
 * Entropy port (entropy.ts): the system clock, or a fixed instant per instance generation. Dates take a time.Time or Unix seconds as a Go int (a template literal);
 * anything else, including Helm's float64 values, means "now", exactly as in Sprig.
 */
import { systemEntropy, type Entropy } from "./entropy.js";
import {
  formatDuration,
  formatTime,
  FuncError,
  goFunc,
  GoInt,
  GoObject,
  int,
  int64,
  inZone,
  parseDuration,
  parseTime,
  TimeParseError,
  timeString,
  unixTime,
  ZERO_TIME,
  type FuncMap,
  type GoTime,
  type GoValue,
} from "../go/index.js";

const TIME_TYPE = "time.Time";
const times = new WeakMap<GoObject, GoTime>();

export function timeObject(t: GoTime): GoObject {
  const o = new GoObject({
    typeName: TIME_TYPE,
    kind: "struct",
    fields: {},
    stringer: () => timeString(t),
    json: () => formatTime(t, "2006-01-02T15:04:05.999999999Z07:00"),
    methods: {
      Unix: goFunc([], () => int64(t.ns >= 0n ? t.ns / 1_000_000_000n : -((-t.ns + 999_999_999n) / 1_000_000_000n))),
      UnixNano: goFunc([], () => int64(t.ns)),
      Format: goFunc(["string"], (layout: string) => formatTime(t, layout)),
      UTC: goFunc([], () => timeObject({ ns: t.ns, offset: 0, zone: "UTC" })),
      String: goFunc([], () => timeString(t)),
      Year: goFunc([], () => int(BigInt(formatTime(t, "2006")))),
      YearDay: goFunc([], () => int(BigInt(formatTime(t, "002")))),
      Day: goFunc([], () => int(BigInt(formatTime(t, "2")))),
      Hour: goFunc([], () => int(BigInt(formatTime(t, "15")))),
      Minute: goFunc([], () => int(BigInt(formatTime(t, "4")))),
      Second: goFunc([], () => int(BigInt(formatTime(t, "5")))),
      Add: goFunc(["int64"], (d: GoInt) => timeObject({ ...t, ns: t.ns + d.value })),
    },
  });
  times.set(o, t);
  return o;
}

type Clock = () => GoTime;

/** Sprig's switch over a date argument: time.Time, Unix seconds as int/int64/int32, else now. */
function toTime(v: GoValue, nowTime: Clock): GoTime {
  if (v instanceof GoObject) return times.get(v) ?? nowTime();
  if (v instanceof GoInt && (v.type === "int" || v.type === "int64")) return unixTime(v.value);
  return nowTime();
}

function asTime(v: GoValue): GoTime {
  if (v instanceof GoObject && times.has(v)) return times.get(v) ?? ZERO_TIME;
  throw new FuncError(`wrong type for value; expected time.Time; got ${v === null ? "<nil>" : typeof v}`);
}

const dateInZoneWith =
  (nowTime: Clock) =>
  (layout: string, date: GoValue, zone: string): string => {
    const t = toTime(date, nowTime);
    return formatTime(inZone(t, zone) ?? inZone(t, "UTC") ?? t, layout);
  };

function modify(spec: string, date: GoValue, must: boolean): GoObject {
  const t = asTime(date);
  const d = parseDuration(spec);
  if (typeof d === "string") {
    if (must) throw new FuncError(d);
    return timeObject(t);
  }
  return timeObject({ ...t, ns: t.ns + d });
}

/** The date functions reading `entropy`'s clock. */
export function dateFuncs(entropy: Entropy): FuncMap {
  const nowTime: Clock = () => ({ ns: entropy.now(), offset: 0, zone: "UTC" });
  const dateInZone = dateInZoneWith(nowTime);
  return {
    now: goFunc([], () => timeObject(nowTime())),
    date: goFunc(["string", "any"], (layout: string, d: GoValue) => dateInZone(layout, d, "Local")),
    dateInZone: goFunc(["string", "any", "string"], dateInZone),
    date_in_zone: goFunc(["string", "any", "string"], dateInZone),
    htmlDate: goFunc(["any"], (d: GoValue) => dateInZone("2006-01-02", d, "Local")),
    htmlDateInZone: goFunc(["any", "string"], (d: GoValue, zone: string) => dateInZone("2006-01-02", d, zone)),
    toDate: goFunc(["string", "string"], (layout: string, s: string) => {
      try {
        return timeObject(parseTime(layout, s));
      } catch (e) {
        if (e instanceof TimeParseError) return timeObject(ZERO_TIME);
        throw e;
      }
    }),
    mustToDate: goFunc(["string", "string"], (layout: string, s: string) => {
      try {
        return timeObject(parseTime(layout, s));
      } catch (e) {
        if (e instanceof TimeParseError) throw new FuncError(e.message);
        throw e;
      }
    }),
    unixEpoch: goFunc(["time"], (d: GoValue) => {
      const t = asTime(d);
      return String(t.ns >= 0n ? t.ns / 1_000_000_000n : -((-t.ns + 999_999_999n) / 1_000_000_000n));
    }),
    dateModify: goFunc(["string", "time"], (s: string, d: GoValue) => modify(s, d, false)),
    date_modify: goFunc(["string", "time"], (s: string, d: GoValue) => modify(s, d, false)),
    mustDateModify: goFunc(["string", "time"], (s: string, d: GoValue) => modify(s, d, true)),
    must_date_modify: goFunc(["string", "time"], (s: string, d: GoValue) => modify(s, d, true)),
    ago: goFunc(["any"], (d: GoValue) => {
      const since = nowTime().ns - toTime(d, nowTime).ns;
      return formatDuration(((since + (since >= 0n ? 500_000_000n : -500_000_000n)) / 1_000_000_000n) * 1_000_000_000n);
    }),
    duration: goFunc(["any"], (v: GoValue) => {
      let n = 0n;
      if (typeof v === "string") n = /^[+-]?\d+$/.test(v) ? BigInt(v) : 0n;
      else if (v instanceof GoInt && v.type === "int64") n = v.value;
      return formatDuration(BigInt.asIntN(64, n * 1_000_000_000n));
    }),
  };
}

export const sprigDateFuncs: FuncMap = dateFuncs(systemEntropy);
