/**
 * Masterminds/semver v3.3.0, as Sprig's semver/semverCompare use it. Not node-semver: the rules
 * differ where charts care. `>=1.19-0` admits every 1.19+ version including prereleases such as
 * "v1.30.2-gke.1200" (a constraint with a prerelease admits prereleases by precedence alone,
 * one without admits none), "1.2" and "v1" parse (missing parts are 0), `x`/`*` wildcards,
 * `,` or spaces for AND, `||` for OR, and `1.2 - 1.4` ranges.
 */
const CV = String.raw`v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const OPS = String.raw`=||!=|>|<|>=|=>|<=|=<|~|~>|\^`;
const CONSTRAINT = new RegExp(String.raw`^\s*(${OPS})\s*(${CV})\s*$`);
const RANGE = new RegExp(String.raw`\s*(${CV})\s+-\s+(${CV})\s*`, "g");
const FIND = new RegExp(String.raw`(${OPS})\s*(${CV})`, "g");
const VALID = new RegExp(String.raw`^(\s*(${OPS})\s*(${CV})\s*)((?:\s+|,\s*)(${OPS})\s*(${CV})\s*)*$`);
const VERSION =
  /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;

export class SemverError extends Error {}

export interface Version {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: string;
  readonly metadata: string;
  readonly original: string;
}

const U64 = (1n << 64n) - 1n;
function segment(s: string): bigint {
  const n = BigInt(s);
  if (n > U64)
    throw new SemverError(
      `Error parsing version segment: strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`,
    );
  return n;
}

/** semver.NewVersion. */
export function parseVersion(v: string): Version {
  const m = VERSION.exec(v);
  if (m === null) throw new SemverError("Invalid Semantic Version");
  const pre = m[5] ?? "";
  for (const part of pre === "" ? [] : pre.split(".")) {
    if (/^[0-9]+$/.test(part) && part.length > 1 && part.startsWith("0"))
      throw new SemverError("Version segment starts with 0");
  }
  return {
    major: segment(m[1] ?? "0"),
    minor: segment((m[2] ?? ".0").slice(1)),
    patch: segment((m[3] ?? ".0").slice(1)),
    pre,
    metadata: m[8] ?? "",
    original: v,
  };
}

export function versionString(v: Version): string {
  return `${v.major}.${v.minor}.${v.patch}${v.pre === "" ? "" : `-${v.pre}`}${v.metadata === "" ? "" : `+${v.metadata}`}`;
}

function comparePart(a: string, b: string): number {
  const an = /^[0-9]+$/.test(a);
  const bn = /^[0-9]+$/.test(b);
  if (an && bn) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x === y ? 0 : x > y ? 1 : -1;
  }
  if (an) return -1;
  if (bn) return 1;
  return a === b ? 0 : a > b ? 1 : -1;
}

function comparePrerelease(a: string, b: string): number {
  if (a === b) return 0;
  if (a === "") return 1;
  if (b === "") return -1;
  const ap = a.split(".");
  const bp = b.split(".");
  for (let i = 0; i < Math.max(ap.length, bp.length); i++) {
    const x = ap[i];
    const y = bp[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const c = comparePart(x, y);
    if (c !== 0) return c;
  }
  return 0;
}

export function compareVersions(a: Version, b: Version): number {
  for (const k of ["major", "minor", "patch"] as const) if (a[k] !== b[k]) return a[k] > b[k] ? 1 : -1;
  return comparePrerelease(a.pre, b.pre);
}

interface Constraint {
  op: string;
  con: Version;
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}
const isX = (s: string): boolean => s === "x" || s === "*" || s === "X";

function parseConstraint(c: string): Constraint {
  const m = CONSTRAINT.exec(c);
  if (m === null) throw new SemverError(`improper constraint: ${c}`);
  const [, op = "", , major = "", minorDot = "", patchDot = "", pre = ""] = m;
  let ver = m[2] ?? "";
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(major) || major === "") {
    ver = `0.0.0${pre}`;
    dirty = true;
  } else if (isX(minorDot.slice(1)) || minorDot === "") {
    minorDirty = true;
    dirty = true;
    ver = `${major}.0.0${pre}`;
  } else if (isX(patchDot.slice(1)) || patchDot === "") {
    dirty = true;
    patchDirty = true;
    ver = `${major}${minorDot}.0${pre}`;
  }
  let con: Version;
  try {
    con = parseVersion(ver);
  } catch {
    throw new SemverError("constraint Parser Error");
  }
  return { op, con, dirty, minorDirty, patchDirty };
}

function check(v: Version, c: Constraint): boolean {
  const { con } = c;
  const cmp = compareVersions(v, con);
  // Every operator but a plain "!=" refuses a prerelease when the constraint has none.
  if (v.pre !== "" && con.pre === "" && (c.op !== "!=" || c.dirty)) return false;
  const tilde = (): boolean => {
    if (cmp < 0) return false;
    if (con.major === 0n && con.minor === 0n && con.patch === 0n && !c.minorDirty && !c.patchDirty) return true;
    if (v.major !== con.major) return false;
    return !(v.minor !== con.minor && !c.minorDirty);
  };
  switch (c.op) {
    case "":
    case "=":
      return c.dirty ? tilde() : cmp === 0;
    case "!=":
      if (c.dirty) {
        if (con.major !== v.major) return true;
        if (con.minor !== v.minor && !c.minorDirty) return true;
        if (c.minorDirty) return false;
        if (con.patch !== v.patch && !c.patchDirty) return true;
        if (c.patchDirty) return (v.pre !== "" || con.pre !== "") && comparePrerelease(v.pre, con.pre) !== 0;
      }
      return cmp !== 0;
    case ">":
      if (!c.dirty) return cmp === 1;
      if (v.major !== con.major) return v.major > con.major;
      if (c.minorDirty) return false;
      if (c.patchDirty) return v.minor > con.minor;
      return cmp === 1;
    case "<":
      return cmp < 0;
    case ">=":
    case "=>":
      return cmp >= 0;
    case "<=":
    case "=<":
      if (!c.dirty) return cmp <= 0;
      if (v.major > con.major) return false;
      return !(v.major === con.major && v.minor > con.minor && !c.minorDirty);
    case "~":
    case "~>":
      return tilde();
    case "^":
      if (cmp < 0) return false;
      if (con.major > 0n || c.minorDirty) return v.major === con.major;
      if (v.major > 0n) return false;
      if (con.minor > 0n || c.patchDirty) return v.minor === con.minor;
      if (v.minor > 0n) return false;
      return con.patch === v.patch;
    default:
      return false;
  }
}

/** semver.NewConstraint(c).Check(v). */
export function satisfies(constraint: string, versionOf: () => Version): boolean {
  const rewritten = constraint.replace(RANGE, (_m, ...g: string[]) => `>= ${g[0] ?? ""}, <= ${g[10] ?? ""} `);
  const groups = rewritten.split("||").map((part) => {
    if (!VALID.test(part)) throw new SemverError(`improper constraint: ${part}`);
    const found = [...part.matchAll(FIND)].map((m) => m[0]);
    return (found.length === 0 ? [part] : found).map(parseConstraint);
  });
  const version = versionOf(); // parsed after the constraint, so a bad constraint is reported first
  return groups.some((and) => and.every((c) => check(version, c)));
}
