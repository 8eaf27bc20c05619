/**
 * `"…".format([args])` of cel-go ext.Strings: verbs %s %d %f %e %b %o %x %X %% with an optional
 * precision (`%.2f`). Values print as cel-go prints them (lists `[1, 2]`, maps `{k: v}`).
 */
import { LibraryError, isCelMap, mapEntries } from "./lib-support.js";
import { compareCodePoints } from "./string-order.js";

export function formatString(template: string, args: readonly unknown[]): string {
  let out = "";
  let next = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== "%") {
      out += c ?? "";
      continue;
    }
    const m = /^%(?:\.(\d+))?([sdfeboxX%])/.exec(template.slice(i));
    if (m === null)
      throw new LibraryError(
        "format_error",
        `could not parse formatting clause at offset ${i}: unrecognized formatting clause`,
      );
    i += m[0].length - 1;
    const verb = m[2] as string;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (next >= args.length) throw new LibraryError("format_error", `index ${next} out of range`);
    const arg = args[next++];
    const precision = m[1] === undefined ? undefined : Number(m[1]);
    out += formatOne(verb, arg, precision);
  }
  return out;
}

function formatOne(verb: string, arg: unknown, precision: number | undefined): string {
  switch (verb) {
    case "s":
      return display(arg, true, false);
    case "d":
      if (typeof arg === "bigint") return arg.toString();
      if (isUint(arg)) return arg.valueOf().toString();
      if (typeof arg === "number" && !Number.isFinite(arg))
        return Number.isNaN(arg) ? "NaN" : arg > 0 ? "Infinity" : "-Infinity";
      throw new LibraryError("format_error", `decimal clause can only be used on integers, was given ${typeName(arg)}`);
    case "f":
      return fixed(arg, precision ?? 6);
    case "e":
      return scientific(arg, precision ?? 6);
    case "b":
      return radix(arg, 2, "binary");
    case "o":
      return radix(arg, 8, "octal");
    case "x":
      return hex(arg);
    case "X":
      return hex(arg).toUpperCase();
    default:
      throw new LibraryError("format_error", `unrecognized formatting clause %${verb}`);
  }
}

interface UintLike {
  valueOf(): bigint;
}
function isUint(v: unknown): v is UintLike {
  return typeof v === "object" && v !== null && v.constructor.name === "UnsignedInt";
}

function numeric(v: unknown, what: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (isUint(v)) return Number(v.valueOf());
  if (typeof v === "string" && /^(NaN|[-+]?Infinity|[-+]?\d+(\.\d+)?([eE][-+]?\d+)?)$/.test(v)) return Number(v);
  throw new LibraryError("format_error", `${what} clause can only be used on numbers, was given ${typeName(v)}`);
}

function fixed(v: unknown, precision: number): string {
  const n = numeric(v, "fixed-point");
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
  return toFixedHalfEven(n, precision);
}

/**
 * Go rounds an exact tie to even (`%.0f` of 2.5 is "2"); JavaScript's toFixed rounds it away from
 * zero. toFixed with 25 more digits shows the exact expansion far enough to see a tie.
 */
export function toFixedHalfEven(n: number, precision: number): string {
  const rounded = n.toFixed(precision);
  const extra = Math.min(100 - precision, 25);
  if (extra <= 0) return rounded;
  const long = n.toFixed(precision + extra);
  const tail = long.slice(long.length - extra);
  if (!/^50*$/.test(tail)) return rounded;
  const truncated = long.slice(0, long.length - extra).replace(/\.$/, "");
  const last = truncated.at(-1) ?? "0";
  return Number(last) % 2 === 0 ? truncated : rounded;
}

function scientific(v: unknown, precision: number): string {
  const n = numeric(v, "scientific");
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
  // Go prints at least two exponent digits: 1.0e+03 → 1.000000e+03.
  return n.toExponential(precision).replace(/e([+-])(\d)$/, "e$10$2");
}

function radix(v: unknown, base: number, what: string): string {
  if (typeof v === "bigint") return v.toString(base);
  if (isUint(v)) return v.valueOf().toString(base);
  if (typeof v === "boolean" && base === 2) return v ? "1" : "0";
  throw new LibraryError("format_error", `${what} clause can only be used on integers, was given ${typeName(v)}`);
}

function hex(v: unknown): string {
  if (typeof v === "bigint") return v < 0n ? `-${(-v).toString(16)}` : v.toString(16);
  if (isUint(v)) return v.valueOf().toString(16);
  if (typeof v === "string") return Buffer.from(v, "utf8").toString("hex");
  if (v instanceof Uint8Array) return Buffer.from(v).toString("hex");
  throw new LibraryError(
    "format_error",
    `only integers, byte buffers, and strings can be formatted as hex, was given ${typeName(v)}`,
  );
}

function typeName(v: unknown): string {
  if (v === null) return "null_type";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (v instanceof Uint8Array) return "bytes";
  if (Array.isArray(v)) return "list";
  if (isCelMap(v)) return "map";
  return typeof v;
}

/**
 * cel-go's String() of a value; `top` strings are bare, nested ones quoted unless `quoteNested`
 * is false (`%s` of format prints `[abc, 3.14]` and `{key: xyz}`, as cel-go does).
 */
export function display(v: unknown, top: boolean, quoteNested = true): string {
  if (v === null) return "null";
  if (typeof v === "string") return top || !quoteNested ? v : JSON.stringify(v);
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (typeof v === "number") {
    if (Number.isInteger(v) && Math.abs(v) < 1e21) return v.toString();
    return String(v);
  }
  if (isUint(v)) return v.valueOf().toString();
  if (v instanceof Uint8Array)
    return top || !quoteNested
      ? Buffer.from(v).toString("utf8")
      : `b${JSON.stringify(Buffer.from(v).toString("utf8"))}`;
  if (v instanceof Date) return v.toISOString().replace(".000Z", "Z");
  if (Array.isArray(v)) return `[${v.map((x) => display(x, false, quoteNested)).join(", ")}]`;
  if (typeof v === "object" && v.constructor.name === "Type") return (v as { name: string }).name;
  if (isCelMap(v)) {
    const entries = mapEntries(v).map(
      ([k, x]) => [display(k, false, quoteNested), display(x, false, quoteNested)] as const,
    );
    entries.sort((a, b) => compareCodePoints(a[0], b[0]));
    return `{${entries.map(([k, x]) => `${k}: ${x}`).join(", ")}}`;
  }
  // Library values (quantity, ip, semver…) print through their own toString.
  return typeof (v as { toString?: unknown }).toString === "function"
    ? (v as { toString(): string }).toString()
    : typeof v;
}
