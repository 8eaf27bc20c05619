/** Go's time.Duration: String() ("1h2m3.5s") and ParseDuration ("-1.5h", "300ms", "2h45m"). */
const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, "µs": 1000n, "μs": 1000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

/** Nanoseconds, or Go's error text. */
export function parseDuration(s: string): bigint | string {
  const orig = s;
  const bad = `time: invalid duration ${JSON.stringify(orig)}`;
  let neg = false;
  if (s.startsWith("-") || s.startsWith("+")) { neg = s.startsWith("-"); s = s.slice(1); }
  if (s === "0") return 0n;
  if (s === "") return bad;
  let total = 0n;
  while (s !== "") {
    const m = /^(\d*)(?:\.(\d*))?/.exec(s);
    const whole = m?.[1] ?? "";
    const frac = m?.[2];
    if (whole === "" && (frac === undefined || frac === "")) return bad;
    s = s.slice(m?.[0].length ?? 0);
    const u = /^[^\d.]+/.exec(s)?.[0];
    if (u === undefined) return `time: missing unit in duration ${JSON.stringify(orig)}`;
    const unit = UNITS[u];
    if (unit === undefined) return `time: unknown unit ${JSON.stringify(u)} in duration ${JSON.stringify(orig)}`;
    s = s.slice(u.length);
    let v = BigInt(whole === "" ? "0" : whole) * unit;
    if (frac !== undefined && frac !== "") v += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    total += v;
  }
  return neg ? -total : total;
}

function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let out = "";
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) out = String(digit) + out;
    v /= 10n;
  }
  return [print ? `.${out}` : "", v];
}

export function formatDuration(d: bigint): string {
  const neg = d < 0n;
  let u = neg ? -d : d;
  if (u < 1_000_000_000n) {
    if (u === 0n) return "0s";
    let prec = 0;
    let unit = "";
    if (u < 1000n) return `${neg ? "-" : ""}${u}ns`;
    if (u < 1_000_000n) { prec = 3; unit = "µs"; } else { prec = 6; unit = "ms"; }
    const [frac, rest] = fmtFrac(u, prec);
    return `${neg ? "-" : ""}${rest}${frac}${unit}`;
  }
  const [frac, secsTotal] = fmtFrac(u, 9);
  u = secsTotal;
  let out = `${u % 60n}${frac}s`;
  u /= 60n;
  if (u > 0n) {
    out = `${u % 60n}m${out}`;
    u /= 60n;
    if (u > 0n) out = `${u}h${out}`;
  }
  return (neg ? "-" : "") + out;
}
