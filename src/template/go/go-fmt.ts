/**
 * Go's fmt package as templates use it: %v printing of every value kind (maps in sorted key
 * order, `<nil>`, floats via strconv), Sprint/Sprintln operand spacing, and Sprintf with flags,
 * width, precision and Go's error annotations (`%!d(string=x)`, `%!d(MISSING)`, `%!(EXTRA …)`).
 */
import { goQuote, runes } from "./go-quote.js";
import { GoObject } from "./go-object.js";
import { formatFloat } from "./number-format.js";
import { GoInt, sortedKeys, toAny, typeName, type GoMap } from "./values.js";

interface Spec { minus: boolean; plus: boolean; sharp: boolean; space: boolean; zero: boolean; width?: number; prec?: number }
const noFlags: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false };

const runeLen = (s: string): number => runes(s).length;

function pad(s: string, spec: Spec, numeric: boolean): string {
  if (spec.width === undefined) return s;
  const n = spec.width - runeLen(s);
  if (n <= 0) return s;
  if (spec.minus) return s + " ".repeat(n);
  if (spec.zero && numeric) {
    const signed = s.startsWith("-") || s.startsWith("+") || s.startsWith(" ");
    return signed ? s.slice(0, 1) + "0".repeat(n) + s.slice(1) : "0".repeat(n) + s;
  }
  return " ".repeat(n) + s;
}

function badVerb(verb: string, v: unknown): string {
  const a = toAny(v);
  if (a === null) return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeName(a)}=${formatValue(a, "v", noFlags, 1)})`;
}

function signed(s: string, negative: boolean, spec: Spec): string {
  if (negative) return `-${s}`;
  if (spec.plus) return `+${s}`;
  if (spec.space) return ` ${s}`;
  return s;
}

function formatInt(v: bigint, verb: string, spec: Spec): string | undefined {
  const neg = v < 0n;
  const abs = neg ? -v : v;
  let body: string;
  switch (verb) {
    case "v": case "d": body = abs.toString(); break;
    case "b": body = abs.toString(2); break;
    case "o": body = (spec.sharp ? "0" : "") + abs.toString(8); break;
    case "O": body = `0o${abs.toString(8)}`; break;
    case "x": body = (spec.sharp ? "0x" : "") + abs.toString(16); break;
    case "X": body = (spec.sharp ? "0X" : "") + abs.toString(16).toUpperCase(); break;
    case "c": return pad(String.fromCodePoint(Number(v)), spec, false);
    case "q": return pad(goQuote(String.fromCodePoint(Number(v)), "'"), spec, false);
    case "U": return pad(`U+${abs.toString(16).toUpperCase().padStart(4, "0")}`, spec, false);
    default: return undefined;
  }
  if (spec.prec !== undefined) body = body.padStart(spec.prec, "0");
  return pad(signed(body, neg, spec), spec.prec === undefined ? spec : { ...spec, zero: false }, true);
}

function formatFloatVerb(x: number, verb: string, spec: Spec): string | undefined {
  let s: string;
  switch (verb) {
    case "v": s = formatFloat(x, "g", spec.prec ?? -1); break;
    case "g": case "G": s = formatFloat(x, verb, spec.prec ?? -1); break;
    case "e": case "E": case "f": s = formatFloat(x, verb, spec.prec ?? 6); break;
    case "F": s = formatFloat(x, "f", spec.prec ?? 6); break;
    default: return undefined;
  }
  if (!s.startsWith("-") && !s.startsWith("+")) s = signed(s, false, spec);
  else if (s === "+Inf" && !spec.plus) s = spec.space ? " Inf" : "+Inf";
  return pad(s, spec, Number.isFinite(x));
}

function formatString(s: string, verb: string, spec: Spec): string | undefined {
  if (spec.prec !== undefined && (verb === "s" || verb === "v" || verb === "q")) s = runes(s).slice(0, spec.prec).join("");
  switch (verb) {
    case "v": case "s": return pad(s, spec, false);
    case "q": return pad(spec.sharp && !s.includes("`") ? `\`${s}\`` : goQuote(s), spec, false);
    case "x": case "X": {
      const hex = [...new TextEncoder().encode(s)].map((b) => b.toString(16).padStart(2, "0")).join("");
      return pad(verb === "X" ? hex.toUpperCase() : hex, spec, false);
    }
    default: return undefined;
  }
}

/** fmt's printValue: one operand with one verb; depth > 0 inside containers. */
export function formatValue(raw: unknown, verb: string, spec: Spec, depth = 0): string {
  const v = toAny(raw);
  if (verb === "T") return pad(typeName(v), spec, false);
  if (v === null) return verb === "v" || depth > 0 ? pad("<nil>", spec, false) : badVerb(verb, v);
  let out: string | undefined;
  if (typeof v === "boolean") out = verb === "v" || verb === "t" ? pad(String(v), spec, false) : undefined;
  else if (typeof v === "number") out = formatFloatVerb(v, verb, spec);
  else if (v instanceof GoInt) out = formatInt(v.value, verb, spec);
  else if (typeof v === "string") out = formatString(v, verb, spec);
  else if (Array.isArray(v)) out = `[${v.map((e) => formatValue(e, verb, spec, depth + 1)).join(" ")}]`;
  else if (v instanceof GoObject) out = formatObject(v, verb, spec, depth);
  else {
    const m = v as GoMap;
    out = `map[${sortedKeys(m).map((k) => `${formatValue(k, verb, spec, depth + 1)}:${formatValue(m[k], verb, spec, depth + 1)}`).join(" ")}]`;
  }
  return out ?? badVerb(verb, v);
}

/** A typed value: its String() method if it has one (fmt's handleMethods), else its fields or contents. */
function formatObject(v: GoObject, verb: string, spec: Spec, depth: number): string | undefined {
  if (v.spec.stringer !== undefined && verb !== "d") return formatString(v.spec.stringer(), verb, spec);
  if (v.spec.bytes !== undefined && (verb === "s" || verb === "q" || verb === "x" || verb === "X")) return formatString(new TextDecoder().decode(v.spec.bytes), verb, spec);
  if (v.spec.kind === "struct") {
    const fields = v.spec.fields ?? {};
    return `{${Object.values(fields).map((f) => formatValue(f, verb, spec, depth + 1)).join(" ")}}`;
  }
  if (v.spec.kind === "string" && typeof v.spec.value === "string") return formatString(v.spec.value, verb, spec);
  return formatValue(v.spec.value ?? null, verb, spec, depth);
}

const isStringArg = (a: unknown): boolean => typeof toAny(a) === "string";

/** fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: readonly unknown[]): string {
  let out = "";
  args.forEach((a, i) => {
    if (i > 0 && !isStringArg(a) && !isStringArg(args[i - 1])) out += " ";
    out += formatValue(a, "v", noFlags);
  });
  return out;
}

/** fmt.Sprintln: always spaces, then a newline. */
export function sprintln(args: readonly unknown[]): string {
  return `${args.map((a) => formatValue(a, "v", noFlags)).join(" ")}\n`;
}

/** fmt's tooLarge: widths and precisions beyond ±1e6 are refused (and so cannot ask for gigabytes). */
const tooLarge = (n: number): boolean => n > 1e6 || n < -1e6;

/** fmt's parsenum: a number too large consumes the rest of the format (Go then reports NOVERB). */
function readNumber(format: string, i: number): [number | undefined, number] {
  let j = i;
  let num = 0;
  while (/[0-9]/.test(format.charAt(j))) {
    if (tooLarge(num)) return [undefined, format.length];
    num = num * 10 + Number(format.charAt(j));
    j++;
  }
  return j === i ? [undefined, i] : [num, j];
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: readonly unknown[]): string {
  let out = "";
  let argNum = 0;
  let i = 0;
  const starArg = (): number | undefined => {
    const a = toAny(args[argNum]);
    argNum++;
    return a instanceof GoInt && !tooLarge(Number(a.value)) ? Number(a.value) : undefined;
  };
  while (i < format.length) {
    const pct = format.indexOf("%", i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const spec: Spec = { ...noFlags };
    for (; i < format.length; i++) {
      const c = format[i];
      if (c === "-") { spec.minus = true; spec.zero = false; }
      else if (c === "+") spec.plus = true;
      else if (c === "#") spec.sharp = true;
      else if (c === " ") spec.space = true;
      else if (c === "0") spec.zero = !spec.minus;
      else break;
    }
    if (format[i] === "*") {
      i++;
      const w = starArg();
      if (w === undefined) out += "%!(BADWIDTH)";
      else if (w < 0) { spec.minus = true; spec.width = -w; } else spec.width = w;
    } else {
      const [w, j] = readNumber(format, i);
      if (w !== undefined) spec.width = w;
      i = j;
    }
    if (format[i] === ".") {
      i++;
      if (format[i] === "*") {
        i++;
        const p = starArg();
        if (p === undefined || p < 0) out += "%!(BADPREC)";
        else spec.prec = p;
      } else {
        const [p, j] = readNumber(format, i);
        spec.prec = p ?? 0;
        i = j;
      }
    }
    if (i >= format.length) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i) ?? 0);
    i += verb.length;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const arg = args[argNum++];
    out += verb === "w" ? `%!w(${typeName(toAny(arg))}=${formatValue(arg, "v", noFlags)})` : formatValue(arg, verb, spec);
  }
  if (argNum < args.length) {
    const extra = args.slice(argNum).map((a) => {
      const v = toAny(a);
      return v === null ? "<nil>" : `${typeName(v)}=${formatValue(v, "v", noFlags)}`;
    });
    out += `%!(EXTRA ${extra.join(", ")})`;
  }
  return out;
}
