/**
 * Kubernetes semver library (`semver("1.2.3")`, optional normalize flag that accepts "v1", "1.2",
 * leading zeros). Comparison follows semver 2.0 precedence (build metadata ignored).
 */
import { LibraryError, type CelEnvironment } from "../lib-support.js";

export class Semver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly string[],
  ) {}
  compare(o: Semver): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const)
      if (a !== b) return a < b ? -1 : 1;
    if (this.pre.length === 0 || o.pre.length === 0)
      return o.pre.length - this.pre.length === 0 ? 0 : this.pre.length === 0 ? 1 : -1;
    for (let i = 0; i < Math.min(this.pre.length, o.pre.length); i++) {
      const a = this.pre[i] ?? "",
        b = o.pre[i] ?? "";
      if (a === b) continue;
      const na = /^\d+$/.test(a),
        nb = /^\d+$/.test(b);
      if (na && nb) return BigInt(a) < BigInt(b) ? -1 : 1;
      if (na !== nb) return na ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return Math.sign(this.pre.length - o.pre.length);
  }
}

const STRICT =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

export function parseSemver(s: string, normalize = false): Semver | undefined {
  let text = s;
  if (normalize) {
    text = text.replace(/^v/, "");
    const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/.exec(text);
    if (m === null) return undefined;
    const part = (x: string | undefined): string => String(BigInt(x ?? "0"));
    text = `${part(m[1])}.${part(m[2])}.${part(m[3])}${m[4] ?? ""}`;
  }
  const m = STRICT.exec(text);
  if (m === null) return undefined;
  return new Semver(
    BigInt(m[1] ?? "0"),
    BigInt(m[2] ?? "0"),
    BigInt(m[3] ?? "0"),
    m[4] === undefined ? [] : m[4].split("."),
  );
}

export function registerSemverLibrary(env: CelEnvironment): void {
  const S = "kubernetes.Semver";
  env.registerType(S, Semver);
  const must = (s: string, normalize: boolean): Semver => {
    const v = parseSemver(s, normalize);
    if (v === undefined)
      throw new LibraryError("invalid_argument", `string ${JSON.stringify(s)} is not a valid semver`);
    return v;
  };
  env.registerFunction("isSemver(string): bool", (s: string) => parseSemver(s) !== undefined);
  env.registerFunction("isSemver(string, bool): bool", (s: string, n: boolean) => parseSemver(s, n) !== undefined);
  env.registerFunction(`semver(string): ${S}`, (s: string) => must(s, false));
  env.registerFunction(`semver(string, bool): ${S}`, (s: string, n: boolean) => must(s, n));
  env.registerFunction(`${S}.major(): int`, (v: Semver) => v.major);
  env.registerFunction(`${S}.minor(): int`, (v: Semver) => v.minor);
  env.registerFunction(`${S}.patch(): int`, (v: Semver) => v.patch);
  env.registerFunction(`${S}.isLessThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) < 0);
  env.registerFunction(`${S}.isGreaterThan(${S}): bool`, (a: Semver, b: Semver) => a.compare(b) > 0);
  env.registerFunction(`${S}.compareTo(${S}): int`, (a: Semver, b: Semver) => BigInt(a.compare(b)));
  env.registerOperator(`${S} == ${S}`, (a: Semver, b: Semver) => a.compare(b) === 0);
}
