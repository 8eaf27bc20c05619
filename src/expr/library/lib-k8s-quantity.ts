/**
 * Kubernetes resource.Quantity in CEL (`quantity("1Gi")`): exact rational arithmetic on BigInt so
 * `quantity("1.5Gi").asInteger()` and comparisons match apimachinery.
 */
import { LibraryError, type CelEnvironment } from "../lib-support.js";

const SUFFIX: Record<string, [bigint, bigint]> = {
  "": [1n, 1n],
  n: [1n, 10n ** 9n],
  u: [1n, 10n ** 6n],
  m: [1n, 1000n],
  k: [10n ** 3n, 1n],
  M: [10n ** 6n, 1n],
  G: [10n ** 9n, 1n],
  T: [10n ** 12n, 1n],
  P: [10n ** 15n, 1n],
  E: [10n ** 18n, 1n],
  Ki: [2n ** 10n, 1n],
  Mi: [2n ** 20n, 1n],
  Gi: [2n ** 30n, 1n],
  Ti: [2n ** 40n, 1n],
  Pi: [2n ** 50n, 1n],
  Ei: [2n ** 60n, 1n],
};

const gcd = (a: bigint, b: bigint): bigint => {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
};

export class Quantity {
  readonly num: bigint;
  readonly den: bigint;
  constructor(num: bigint, den: bigint) {
    const g = gcd(num, den) || 1n;
    this.num = num / g;
    this.den = den / g;
  }
  compare(o: Quantity): number {
    const d = this.num * o.den - o.num * this.den;
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  add(o: Quantity): Quantity {
    return new Quantity(this.num * o.den + o.num * this.den, this.den * o.den);
  }
  neg(): Quantity {
    return new Quantity(-this.num, this.den);
  }
}

export function parseQuantity(s: string): Quantity | undefined {
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(s);
  if (m === null) return undefined;
  const [, sign, digits = "", exp, suffix = ""] = m;
  const [int = "", frac = ""] = digits.split(".");
  let num = BigInt(int + frac || "0");
  let den = 10n ** BigInt(frac.length);
  if (exp !== undefined) {
    const e = BigInt(exp.slice(1));
    if (e >= 0n) num *= 10n ** e;
    else den *= 10n ** -e;
  } else {
    const [mul, div] = SUFFIX[suffix] ?? [1n, 1n];
    num *= mul;
    den *= div;
  }
  return new Quantity(sign === "-" ? -num : num, den);
}

function must(s: string): Quantity {
  const q = parseQuantity(s);
  if (q === undefined)
    throw new LibraryError("invalid_argument", `quantities must match the regular expression: ${JSON.stringify(s)}`);
  return q;
}

const MAX_INT64 = 2n ** 63n - 1n,
  MIN_INT64 = -(2n ** 63n);

export function registerQuantityLibrary(env: CelEnvironment): void {
  const Q = "kubernetes.Quantity";
  env.registerType(Q, Quantity);
  env.registerFunction("isQuantity(string): bool", (s: string) => parseQuantity(s) !== undefined);
  env.registerFunction(`quantity(string): ${Q}`, must);
  env.registerFunction(`${Q}.sign(): int`, (q: Quantity) => BigInt(q.compare(new Quantity(0n, 1n))));
  env.registerFunction(
    `${Q}.isInteger(): bool`,
    (q: Quantity) => q.den === 1n && q.num <= MAX_INT64 && q.num >= MIN_INT64,
  );
  env.registerFunction(`${Q}.asInteger(): int`, (q: Quantity) => {
    if (q.den !== 1n || q.num > MAX_INT64 || q.num < MIN_INT64)
      throw new LibraryError("invalid_argument", "cannot convert value to integer");
    return q.num;
  });
  env.registerFunction(`${Q}.asApproximateFloat(): double`, (q: Quantity) => Number(q.num) / Number(q.den));
  env.registerFunction(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b));
  env.registerFunction(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => a.add(new Quantity(b, 1n)));
  env.registerFunction(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b.neg()));
  env.registerFunction(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => a.add(new Quantity(-b, 1n)));
  env.registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) < 0);
  env.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compare(b) > 0);
  env.registerFunction(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.compare(b)));
  env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.compare(b) === 0);
}
