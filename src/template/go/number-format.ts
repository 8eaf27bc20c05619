/**
 * Go's strconv.FormatFloat for the 'e', 'f' and 'g' formats, digit for digit. Shortest
 * formatting takes JavaScript's shortest round-trip digits (the same digits Go chooses);
 * fixed precision rounds the exact binary value half-to-even, as Go does (JS toFixed does not).
 */
interface Digits { d: string; dp: number } // value = 0.d × 10^dp; d has no trailing zeros

function shortestDigits(x: number): Digits {
  const [mant = "0", exp = "0"] = x.toExponential().split("e");
  const d = mant.replace(".", "").replace(/0+$/, "");
  return { d: d === "" ? "0" : d, dp: Number(exp) + 1 };
}

/** The exact decimal expansion of a finite positive double. */
function exactDigits(x: number): Digits {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const rawExp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp: number;
  if (rawExp === 0) exp = -1074;
  else {
    mant |= 1n << 52n;
    exp = rawExp - 1075;
  }
  let s: string;
  let dp: number;
  if (exp >= 0) {
    s = (mant << BigInt(exp)).toString();
    dp = s.length;
  } else {
    s = (mant * 5n ** BigInt(-exp)).toString();
    dp = s.length + exp;
  }
  const d = s.replace(/0+$/, "");
  return { d, dp };
}

/** Rounds exact digits to nd significant digits, half to even. */
function roundDigits(x: Digits, nd: number): Digits {
  if (nd < 0 || nd >= x.d.length) return x;
  const next = x.d.charCodeAt(nd) - 48;
  let up = next > 5;
  if (next === 5) up = nd + 1 < x.d.length || (nd > 0 && (x.d.charCodeAt(nd - 1) - 48) % 2 === 1);
  let d = x.d.slice(0, nd);
  let dp = x.dp;
  if (up) {
    let i = d.length - 1;
    while (i >= 0 && d[i] === "9") i--;
    if (i < 0) {
      d = "1";
      dp++;
    } else d = d.slice(0, i) + String.fromCharCode(d.charCodeAt(i) + 1);
  }
  d = d.replace(/0+$/, "");
  return { d, dp: d === "" ? 0 : dp };
}

const digitAt = (x: Digits, i: number): string => (i >= 0 && i < x.d.length ? (x.d[i] ?? "0") : "0");

function fmtE(x: Digits, prec: number, e: string): string {
  let out = x.d === "" ? "0" : digitAt(x, 0);
  if (prec > 0) {
    out += ".";
    for (let i = 1; i <= prec; i++) out += digitAt(x, i);
  }
  const exp = x.d === "" ? 0 : x.dp - 1;
  const abs = Math.abs(exp);
  return `${out}${e}${exp < 0 ? "-" : "+"}${abs < 10 ? "0" : ""}${abs}`;
}

function fmtF(x: Digits, prec: number): string {
  let out = "";
  if (x.dp > 0) for (let i = 0; i < x.dp; i++) out += digitAt(x, i);
  else out = "0";
  if (prec > 0) {
    out += ".";
    for (let i = 0; i < prec; i++) out += digitAt(x, x.dp + i);
  }
  return out;
}

/** strconv.FormatFloat(x, fmt, prec, 64); prec -1 means shortest. */
export function formatFloat(x: number, fmt: "e" | "E" | "f" | "g" | "G", prec: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  const neg = x < 0 || Object.is(x, -0);
  const sign = neg ? "-" : "";
  const a = Math.abs(x);
  const shortest = prec < 0;
  let digs: Digits;
  if (a === 0) digs = { d: "", dp: 0 };
  else if (shortest) digs = shortestDigits(a);
  else {
    const exact = exactDigits(a);
    if (fmt === "e" || fmt === "E") digs = roundDigits(exact, prec + 1);
    else if (fmt === "f") digs = roundDigits(exact, exact.dp + prec);
    else digs = roundDigits(exact, prec === 0 ? 1 : prec);
  }
  if (shortest) {
    if (fmt === "e" || fmt === "E") prec = Math.max(digs.d.length - 1, 0);
    else if (fmt === "f") prec = Math.max(digs.d.length - digs.dp, 0);
    else prec = digs.d.length;
  } else if ((fmt === "g" || fmt === "G") && prec === 0) prec = 1;
  if (fmt === "e" || fmt === "E") return sign + fmtE(digs, prec, fmt);
  if (fmt === "f") return sign + fmtF(digs, prec);
  const nd = digs.d.length;
  const dp = a === 0 ? 1 : digs.dp;
  let eprec = prec;
  if (eprec > nd && nd >= dp) eprec = nd;
  if (shortest) eprec = 6;
  const exp = dp - 1;
  if (a !== 0 && (exp < -4 || exp >= eprec)) {
    if (prec > nd) prec = nd;
    return sign + fmtE(digs, prec - 1, fmt === "g" ? "e" : "E");
  }
  if (prec > dp) prec = nd;
  return sign + fmtF(a === 0 ? { d: "", dp: 1 } : digs, Math.max(prec - dp, 0));
}
