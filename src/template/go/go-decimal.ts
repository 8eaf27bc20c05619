/**
 * The shopspring/decimal arithmetic behind Sprig's addf/subf/mulf/divf: each float64 becomes the
 * exact decimal of its shortest representation (so 0.1 + 0.2 is 0.3), the operations are exact
 * (division: 16 fractional digits, rounded half away from zero) and the result is rounded back
 * to the nearest float64. Division by zero fails as the library panics.
 */
import { FuncError } from "./functions.js";

interface Dec { readonly coef: bigint; readonly exp: number }

function fromFloat(f: number): Dec {
  if (!Number.isFinite(f)) throw new FuncError(`Cannot create a Decimal from ${f}`);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(f));
  if (m === null) return { coef: 0n, exp: 0 };
  const frac = m[3] ?? "";
  return { coef: BigInt(`${m[1] ?? ""}${m[2] ?? "0"}${frac}`), exp: Number(m[4] ?? "0") - frac.length };
}

const scale = (d: Dec, exp: number): bigint => d.coef * 10n ** BigInt(d.exp - exp);

function add(a: Dec, b: Dec, sign: bigint): Dec {
  const exp = Math.min(a.exp, b.exp);
  return { coef: scale(a, exp) + sign * scale(b, exp), exp };
}

function div(a: Dec, b: Dec): Dec {
  if (b.coef === 0n) throw new FuncError("decimal division by 0");
  // a/b with 17 fractional digits, then rounded half away from zero to 16.
  const exp = -17;
  let num = a.coef;
  let den = b.coef;
  const shift = a.exp - b.exp - exp;
  if (shift >= 0) num *= 10n ** BigInt(shift);
  else den *= 10n ** BigInt(-shift);
  let q = num / den;
  const neg = q < 0n || (q === 0n && (num < 0n) !== (den < 0n));
  const abs = q < 0n ? -q : q;
  const rounded = (abs + 5n) / 10n;
  q = neg ? -rounded : rounded;
  return { coef: q, exp: -16 };
}

const toFloat = (d: Dec): number => Number(`${d.coef}e${d.exp}`);

export function decimalOp(first: number, rest: readonly number[], op: "add" | "sub" | "mul" | "div"): number {
  let acc = fromFloat(first);
  for (const x of rest) {
    const d = fromFloat(x);
    if (op === "add") acc = add(acc, d, 1n);
    else if (op === "sub") acc = add(acc, d, -1n);
    else if (op === "mul") acc = { coef: acc.coef * d.coef, exp: acc.exp + d.exp };
    else acc = div(acc, d);
  }
  return toFloat(acc);
}
