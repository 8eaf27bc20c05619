/**
 * Literal parsing with Go's strconv rules, because kro parses marker values with strconv and an
 * RGD must mean the same thing here (`required=T` is true, `minimum=+1.5e2` is 150, `0x10` is
 * not an int64).
 */

const GO_TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const GO_FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** strconv.ParseBool. */
export function parseGoBool(text: string): boolean | undefined {
  if (GO_TRUE.has(text)) return true;
  if (GO_FALSE.has(text)) return false;
  return undefined;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export type IntParse = { readonly value: number } | { readonly error: string };

/**
 * strconv.ParseInt(text, 10, 64). JSON numbers here are JS doubles, so an int64 beyond 2^53 is
 * reported instead of being silently rounded.
 */
export function parseGoInt64(text: string): IntParse {
  if (!/^[+-]?[0-9]+$/.test(text)) return { error: `"${text}" is not an integer` };
  const big = BigInt(text);
  if (big < INT64_MIN || big > INT64_MAX) return { error: `"${text}" is out of the int64 range` };
  if (big < BigInt(Number.MIN_SAFE_INTEGER) || big > BigInt(Number.MAX_SAFE_INTEGER)) {
    return { error: `"${text}" cannot be represented exactly (beyond ±2^53)` };
  }
  return { value: Number(big) };
}

/**
 * strconv.ParseFloat(text, 64) for decimal syntax. Inf/NaN parse in Go but cannot be written as
 * JSON, so they are rejected like out-of-range values.
 */
export function parseGoFloat64(text: string): IntParse {
  if (!/^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(text))
    return { error: `"${text}" is not a number` };
  const value = Number(text);
  if (!Number.isFinite(value)) return { error: `"${text}" is out of the float64 range` };
  return { value: Object.is(value, -0) ? 0 : value };
}
