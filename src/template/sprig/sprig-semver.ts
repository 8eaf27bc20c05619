/** Sprig's semver (a *semver.Version with its methods) and semverCompare, over semver.ts. */
import { FuncError, goFunc, GoInt, GoObject, type FuncMap } from "../go/index.js";
import { compareVersions, parseVersion, satisfies, SemverError, versionString, type Version } from "./semver.js";

function guard<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof SemverError) throw new FuncError(e.message);
    throw e;
  }
}

const u64 = (n: bigint): GoInt => new GoInt(n, "uint64");

function versionObject(v: Version): GoObject {
  const other = (o: unknown): Version => {
    if (o instanceof GoObject && o.typeName === "*semver.Version") return (o.spec.json?.() as { v: Version }).v;
    throw new FuncError(`wrong type for value; expected *semver.Version`);
  };
  const inc = (major: bigint, minor: bigint, patch: bigint): GoObject =>
    versionObject({ major, minor, patch, pre: "", metadata: "", original: `${major}.${minor}.${patch}` });
  return new GoObject({
    typeName: "*semver.Version",
    kind: "struct",
    fields: {},
    stringer: () => versionString(v),
    json: () => ({ v }),
    methods: {
      Major: goFunc([], () => u64(v.major)),
      Minor: goFunc([], () => u64(v.minor)),
      Patch: goFunc([], () => u64(v.patch)),
      Prerelease: goFunc([], () => v.pre),
      Metadata: goFunc([], () => v.metadata),
      Original: goFunc([], () => v.original),
      String: goFunc([], () => versionString(v)),
      Compare: goFunc(["any"], (o: unknown) => new GoInt(BigInt(compareVersions(v, other(o))), "int")),
      LessThan: goFunc(["any"], (o: unknown) => compareVersions(v, other(o)) < 0),
      GreaterThan: goFunc(["any"], (o: unknown) => compareVersions(v, other(o)) > 0),
      Equal: goFunc(["any"], (o: unknown) => compareVersions(v, other(o)) === 0),
      IncMajor: goFunc([], () => inc(v.major + 1n, 0n, 0n)),
      IncMinor: goFunc([], () => inc(v.major, v.minor + 1n, 0n)),
      IncPatch: goFunc([], () =>
        v.pre === "" && v.metadata === "" ? inc(v.major, v.minor, v.patch + 1n) : inc(v.major, v.minor, v.patch),
      ),
    },
  });
}

export const sprigSemverFuncs: FuncMap = {
  semver: goFunc(["string"], (s: string) => guard(() => versionObject(parseVersion(s)))),
  semverCompare: goFunc(["string", "string"], (c: string, s: string) =>
    guard(() => satisfies(c, () => parseVersion(s))),
  ),
};
