/**
 * How Kubernetes and Helm read a YAML scalar: sigs.k8s.io/yaml (v1.5) decodes with go-yaml v2
 * (go.yaml.in/yaml/v2 v2.4.2), whose `resolve()` implements YAML 1.1's implicit types, then
 * converts to JSON. This file is that `resolve()` (resolve.go) transcribed, plus the JSON step's
 * map-key rule (`convertToJSONableObject`), so every YAML the project reads — RGDs, instances,
 * values files, rendered chart bodies, `-f` files — has the scalars kubectl would send.
 *
 * What that means, which a YAML 1.2 reader gets wrong:
 * - `y Y yes Yes YES on On ON true True TRUE` are true, `n N no No NO off Off OFF false False FALSE` false;
 * - integers go through Go's `strconv.ParseInt(s, 0, 64)` after removing every `_`: `0755` is octal
 *   (493), `0o17`/`0x1F`/`0b101` (either case of the letter), `1_000`, a sign on any of them;
 *   then `ParseUint`, then a decimal float (`08` is 8, `1.` is 1, `1e3` is 1000);
 *   out-of-range hex/octal/binary stays a string, out-of-range decimals become floats, a float that
 *   overflows stays a string;
 * - timestamps (`2001-12-14`) and base-60 numbers (`190:20:30`) stay strings;
 * - `.inf`, `-.inf`, `.nan` are floats — which JSON cannot carry: the JSON step fails on them.
 */

export type GoScalarKind = "null" | "bool" | "int" | "uint" | "float" | "merge" | "timestamp" | "string";

export interface GoScalar {
  readonly kind: GoScalarKind;
  /** The value: null, a boolean, a number (ints beyond 2^53 rounded, as JSON.parse would), or the text itself. */
  readonly value: null | boolean | number | string;
  /** For int/uint: the exact decimal digits (map keys use them). */
  readonly exact?: string;
}

const TRUE = new Set(["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]);
const FALSE = new Set(["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]);
const NULL = new Set(["", "~", "null", "Null", "NULL"]);
const NAN = new Set([".nan", ".NaN", ".NAN"]);
const INF = new Set([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"]);
const NEG_INF = new Set(["-.inf", "-.Inf", "-.INF"]);

/** go-yaml v2's `yamlStyleFloat`, tried on the text without underscores. */
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** What Go's `strconv.ParseFloat` accepts for text that starts with `.` (no underscores there). */
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
/** The start of every layout in go-yaml v2's `allowedTimestampFormats` (`YYYY-`), checked first there too. */
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:$|[Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2})?$)/;

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const UINT64_MAX = (1n << 64n) - 1n;

/** Go's `ParseUint(s, 0, 64)` without the range check: the value, or undefined for a syntax error. */
function parseGoUnsigned(s: string): bigint | undefined {
  if (s === "") return undefined;
  let digits = s;
  let radix = 10;
  if (s[0] === "0") {
    const letter = s[1]?.toLowerCase();
    if (s.length >= 3 && (letter === "b" || letter === "o" || letter === "x")) {
      radix = letter === "b" ? 2 : letter === "o" ? 8 : 16;
      digits = s.slice(2);
    } else {
      radix = 8;
      digits = s.slice(1);
      if (digits === "") return 0n;
    }
  }
  const valid = radix === 2 ? /^[01]+$/ : radix === 8 ? /^[0-7]+$/ : radix === 10 ? /^[0-9]+$/ : /^[0-9a-fA-F]+$/;
  if (!valid.test(digits)) return undefined;
  const prefix = radix === 2 ? "0b" : radix === 8 ? "0o" : radix === 16 ? "0x" : "";
  return BigInt(prefix + digits);
}

/** Go's `ParseInt(s, 0, 64)` (sign allowed, int64 range). */
function parseGoInt(s: string): bigint | undefined {
  const negative = s.startsWith("-");
  const body = s.startsWith("-") || s.startsWith("+") ? s.slice(1) : s;
  const magnitude = parseGoUnsigned(body);
  if (magnitude === undefined) return undefined;
  const value = negative ? -magnitude : magnitude;
  return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
}

function integer(kind: "int" | "uint", value: bigint): GoScalar {
  return { kind, value: Number(value), exact: value.toString() };
}

/** go-yaml v2's `resolve("", text)`: what an untagged plain scalar is. */
export function resolveGoScalar(text: string): GoScalar {
  if (TRUE.has(text)) return { kind: "bool", value: true };
  if (FALSE.has(text)) return { kind: "bool", value: false };
  if (NULL.has(text)) return { kind: "null", value: null };
  if (NAN.has(text)) return { kind: "float", value: Number.NaN };
  if (INF.has(text)) return { kind: "float", value: Number.POSITIVE_INFINITY };
  if (NEG_INF.has(text)) return { kind: "float", value: Number.NEGATIVE_INFINITY };
  if (text === "<<") return { kind: "merge", value: text };
  const first = text[0] ?? "";
  if (first === ".") {
    if (DOT_FLOAT.test(text)) {
      const f = Number(text);
      if (Number.isFinite(f)) return { kind: "float", value: f };
    }
    return { kind: "string", value: text };
  }
  if (!/[-+0-9]/.test(first)) return { kind: "string", value: text };
  if (TIMESTAMP.test(text)) return { kind: "timestamp", value: text };
  const plain = text.replaceAll("_", "");
  const signed = parseGoInt(plain);
  if (signed !== undefined) return integer("int", signed);
  const unsigned = parseGoUnsigned(plain);
  if (unsigned !== undefined && unsigned <= UINT64_MAX) return integer("uint", unsigned);
  if (YAML_STYLE_FLOAT.test(plain)) {
    const f = Number(plain);
    // ParseFloat fails with ErrRange on overflow (go-yaml then keeps the text); underflow is 0.
    if (Number.isFinite(f)) return { kind: "float", value: f };
  }
  return { kind: "string", value: text };
}

/**
 * A float map key as sigs.k8s.io/yaml writes it: `strconv.FormatFloat(k, 'g', -1, 32)` — the
 * shortest digits of the float32, exponent form below 1e-4 and from 1e6 — with Go's Inf/NaN
 * spelled as YAML.
 */
export function goFloatKey(value: number): string {
  const f = Math.fround(value);
  if (Number.isNaN(f)) return ".nan";
  if (f === Number.POSITIVE_INFINITY) return ".inf";
  if (f === Number.NEGATIVE_INFINITY) return "-.inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const sign = f < 0 ? "-" : "";
  const magnitude = Math.abs(f);
  let precision = 1;
  while (precision < 9 && Math.fround(Number(magnitude.toPrecision(precision))) !== magnitude) precision++;
  const [mantissa = "0", exponentText = "0"] = magnitude.toExponential(precision - 1).split("e");
  const digits = mantissa.replace(".", "").replace(/0+$/, "") || "0";
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : "";
    return `${sign}${digits[0] ?? "0"}${fraction}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  const point = exponent + 1;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  const whole = digits.slice(0, point).padEnd(point, "0");
  const fraction = digits.slice(point);
  return `${sign}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}

/** Base-60 numbers of YAML 1.1 (`190:20:30`): go-yaml v2 reads them as strings but quotes them on the way out. */
const BASE_60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/**
 * Whether a string must be quoted so that every reader Kubernetes users meet reads it back as
 * the same string: go-yaml v2 (kubectl, Helm, the API server), go-yaml v3 and YAML 1.2 readers.
 * Over-quoting is harmless; under-quoting is `value: no` arriving as `false`.
 */
export function needsQuotes(text: string): boolean {
  if (resolveGoScalar(text).kind !== "string") return true;
  if (BASE_60.test(text)) return true;
  // YAML 1.2 core schema (go-yaml v3, most non-Go tools) beyond what v2 resolves.
  return /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/.test(
    text,
  );
}
