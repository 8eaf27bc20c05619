/**
 * Standard-library conversions cel-go has and cel-js 8 lacks: int(uint), int/string of a
 * timestamp, string of a duration, the identity conversions timestamp(timestamp) and
 * duration(duration).
 * cel-js timestamps are JavaScript Dates (millisecond precision) and durations its own class.
 * Also `duration.getMilliseconds()`: cel-go answers the millisecond part (321 for 123.321s),
 * cel-js the whole duration in milliseconds; ast-rewrites.ts routes the call here.
 */
import { LibraryError, type CelEnvironment } from "../lib-support.js";

const TS = "google.protobuf.Timestamp";
const DUR = "google.protobuf.Duration";
const INT64_MAX = (1n << 63n) - 1n;

/** The slice of cel-js' Duration we use. */
interface Duration {
  extendTimestamp(ts: Date): Date;
  toString(): string;
}

/** RFC 3339 in UTC with the fraction trimmed, as cel-go's string(timestamp) prints it. */
export function formatTimestamp(d: Date): string {
  return d.toISOString().replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac === "" ? "Z" : `.${frac}Z`));
}

/** Hidden name of `getMilliseconds()` (timestamps and durations); see ast-rewrites.ts. */
export const GET_MILLISECONDS = "kroGetMilliseconds";

export function registerConversionsLibrary(env: CelEnvironment): void {
  env.registerFunction(`${TS}.${GET_MILLISECONDS}(): int`, (d: Date) => BigInt(d.getUTCMilliseconds()));
  env.registerFunction(`${DUR}.${GET_MILLISECONDS}(): int`, (d: { nanos: number }) =>
    BigInt(Math.trunc(d.nanos / 1_000_000)),
  );
  env.registerFunction("int(uint): int", (u: { valueOf(): bigint }) => {
    const v = u.valueOf();
    if (v > INT64_MAX) throw new LibraryError("numeric_overflow", `int(${v}u): integer overflow`);
    return v;
  });
  env.registerFunction(`int(${TS}): int`, (d: Date) => BigInt(Math.floor(d.getTime() / 1000)));
  env.registerFunction(`string(${TS}): string`, formatTimestamp);
  env.registerFunction(`string(${DUR}): string`, (d: Duration) => d.toString());
  env.registerFunction(`timestamp(${TS}): ${TS}`, (d: Date) => d);
  env.registerFunction(`duration(${DUR}): ${DUR}`, (d: Duration) => d);
}
