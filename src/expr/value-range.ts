/**
 * CEL's range for ints (int64: cel-go fails on overflow; cel-js' BigInts do not overflow where it
 * forgets to check, as in `int(1e99)`, `-(-9223372036854775808)` or `MIN / -1`), for timestamps (years 0001 to 9999) and cel-go's for durations (int64 nanoseconds,
 * about ±292 years), which cel-go
 * enforces on every value it builds and cel-js 8 does not: `timestamp('9999-12-31T23:59:59Z') +
 * duration('1s')` or `duration('320000000000s')` are errors in cel-go and kro. Checked after each
 * node that can build one (arithmetic, negation, function calls) by the evaluation wrapper in
 * instrument.ts.
 */
import { LibraryError } from "./lib-support.js";

const MIN_TIMESTAMP_MS = -62_135_596_800_000; // 0001-01-01T00:00:00Z
const MAX_TIMESTAMP_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
// cel-go durations are Go time.Durations: int64 nanoseconds, about ±292 years.
const MAX_DURATION_NANOS = (1n << 63n) - 1n;

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Operations whose result may be a new int, timestamp or duration. */
export const RANGED_OPS: ReadonlySet<string> = new Set(["+", "-", "*", "/", "-_", "call", "rcall"]);

/** Throws when `value` is an int, timestamp or duration outside CEL's range; anything else passes. */
export function assertInRange(value: unknown): void {
  if (typeof value === "bigint") {
    if (value > INT64_MAX || value < INT64_MIN) throw new LibraryError("numeric_overflow", "integer overflow (int64)");
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (value instanceof Date) {
    const t = value.getTime();
    if (!(t >= MIN_TIMESTAMP_MS && t <= MAX_TIMESTAMP_MS))
      throw new LibraryError("timestamp_out_of_range", "timestamp out of range (years 0001 to 9999)");
  } else if (value.constructor.name === "Duration") {
    const d = value as { seconds: bigint; nanos: number };
    const nanos = d.seconds * 1_000_000_000n + BigInt(d.nanos);
    if (nanos > MAX_DURATION_NANOS || nanos < -MAX_DURATION_NANOS - 1n)
      throw new LibraryError("duration_out_of_range", "duration out of range (int64 nanoseconds, about ±292 years)");
  }
}
