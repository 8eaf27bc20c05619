/**
 * The typed objects of Helm's template data, with their Go methods: `.Files` (engine.files:
 * Get, GetBytes, Glob, AsConfig, AsSecrets, Lines), `.Capabilities` (*chartutil.Capabilities:
 * KubeVersion with String/GitVersion, APIVersions with Has, HelmVersion) and `.Chart`
 * (chart.Metadata's fields plus IsRoot). Everything else in Helm's data is plain maps.
 */
import { goBytes, goFunc, GoObject, stringSlice, toYaml, type GoMap } from "../go/index.js";

/** gobwas/glob with '/' as separator: `*` and `?` stay within a segment, `**` crosses them. */
export function globToRegExp(pattern: string): RegExp | undefined {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        re += "[\\s\\S]*";
        i++;
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) return undefined;
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith("!");
      if (negate) body = body.slice(1);
      re += `[${negate ? "^" : ""}${body.replace(/[\\\]^]/g, "\\$&")}]`;
      i = end;
    } else if (c === "{") {
      const end = pattern.indexOf("}", i);
      if (end < 0) return undefined;
      re += `(?:${pattern
        .slice(i + 1, end)
        .split(",")
        .map((a) => a.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
        .join("|")})`;
      i = end;
    } else if (c === "\\") {
      re += `\\${pattern.charAt(++i) || "\\"}`;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^${re}$`, "s");
}

const base = (p: string): string => p.slice(p.lastIndexOf("/") + 1);

/** Helm's `.Files`: the chart's non-template files, by path. */
export function helmFiles(files: Readonly<Record<string, string | Uint8Array>>): GoObject {
  const bytes = new Map<string, Uint8Array>();
  for (const [name, data] of Object.entries(files))
    bytes.set(name, typeof data === "string" ? new TextEncoder().encode(data) : data);
  return filesObject(bytes);
}

function filesObject(files: ReadonlyMap<string, Uint8Array>): GoObject {
  const text = (name: string): string => new TextDecoder().decode(files.get(name) ?? new Uint8Array());
  const value: GoMap = {};
  for (const [name, data] of files) value[name] = goBytes(data);
  const asMap = (encode: (d: Uint8Array) => string): string => {
    const m: GoMap = {};
    for (const [name, data] of files) m[base(name)] = encode(data);
    return toYaml(m);
  };
  return new GoObject({
    typeName: "engine.files",
    kind: "map",
    value,
    zeroElem: goBytes(new Uint8Array()),
    json: () => Object.fromEntries([...files].map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
    methods: {
      Get: goFunc(["string"], (name: string) => text(name)),
      GetBytes: goFunc(["string"], (name: string) => goBytes(files.get(name) ?? new Uint8Array())),
      Glob: goFunc(["string"], (pattern: string) => {
        const re = globToRegExp(pattern) ?? /^[\s\S]*$/;
        return filesObject(new Map([...files].filter(([name]) => re.test(name))));
      }),
      AsConfig: goFunc([], () => asMap((d) => new TextDecoder().decode(d))),
      AsSecrets: goFunc([], () => asMap((d) => Buffer.from(d).toString("base64"))),
      Lines: goFunc(["string"], (name: string) => {
        if (!files.has(name)) return stringSlice([]);
        const s = text(name);
        return stringSlice((s.endsWith("\n") ? s.slice(0, -1) : s).split("\n"));
      }),
    },
  });
}

export interface HelmCapabilitiesInput {
  /** "v1.33.0", "1.33" (`--kube-version`); parsed as Helm parses it. */
  readonly kubeVersion: string;
  readonly apiVersions: readonly string[];
  readonly helmVersion?: {
    readonly version: string;
    readonly gitCommit?: string;
    readonly gitTreeState?: string;
    readonly goVersion?: string;
  };
}

/** chartutil.ParseKubeVersion: Masterminds semver, printed back with a "v". */
export function parseKubeVersion(version: string): { version: string; major: string; minor: string } | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(version.trim());
  if (m === null) return undefined;
  const [major, minor = "0", patch = "0"] = [m[1] ?? "0", m[2], m[3]].map((n) =>
    n === undefined ? undefined : BigInt(n).toString(),
  );
  return { version: `v${major}.${minor}.${patch}${m[4] ?? ""}${m[5] ?? ""}`, major: major ?? "0", minor };
}

/** Helm's `.Capabilities`. */
export function helmCapabilities(input: HelmCapabilitiesInput): GoObject {
  const kv = parseKubeVersion(input.kubeVersion) ?? { version: input.kubeVersion, major: "", minor: "" };
  const kubeVersion = new GoObject({
    typeName: "chartutil.KubeVersion",
    kind: "struct",
    fields: { Version: kv.version, Major: kv.major, Minor: kv.minor },
    stringer: () => kv.version,
    json: () => ({ Version: kv.version, Major: kv.major, Minor: kv.minor }),
    methods: { String: goFunc([], () => kv.version), GitVersion: goFunc([], () => kv.version) },
  });
  const versions = [...input.apiVersions];
  const apiVersions = new GoObject({
    typeName: "chartutil.VersionSet",
    kind: "slice",
    value: stringSlice([...versions]),
    json: () => [...versions],
    methods: { Has: goFunc(["string"], (v: string) => versions.includes(v)) },
  });
  const hv = input.helmVersion ?? { version: "v3.18.6" };
  const helmFields = {
    Version: hv.version,
    GitCommit: hv.gitCommit ?? "",
    GitTreeState: hv.gitTreeState ?? "",
    GoVersion: hv.goVersion ?? "",
  };
  const helmVersion = new GoObject({
    typeName: "version.BuildInfo",
    kind: "struct",
    fields: helmFields,
    json: () =>
      Object.fromEntries(
        Object.entries({
          version: helmFields.Version,
          git_commit: helmFields.GitCommit,
          git_tree_state: helmFields.GitTreeState,
          go_version: helmFields.GoVersion,
        }).filter(([, v]) => v !== ""),
      ),
  });
  return new GoObject({
    typeName: "*chartutil.Capabilities",
    kind: "struct",
    fields: { KubeVersion: kubeVersion, APIVersions: apiVersions, HelmVersion: helmVersion },
    json: () => ({
      KubeVersion: kubeVersion.spec.json?.(),
      APIVersions: versions,
      HelmVersion: helmVersion.spec.json?.(),
    }),
  });
}

/** Chart.yaml as Helm's `.Chart` sees it: chart.Metadata's fields (Go names) plus IsRoot. */
export function helmChart(meta: Readonly<Record<string, unknown>>, isRoot: boolean): GoObject {
  const str = (k: string): string => (typeof meta[k] === "string" ? meta[k] : "");
  const list = (k: string): unknown[] => (Array.isArray(meta[k]) ? meta[k] : []);
  const fields = {
    Name: str("name"),
    Home: str("home"),
    Sources: stringSlice(list("sources").map(String)),
    Version: str("version"),
    Description: str("description"),
    Keywords: stringSlice(list("keywords").map(String)),
    Maintainers: list("maintainers"),
    Icon: str("icon"),
    APIVersion: str("apiVersion"),
    Condition: str("condition"),
    Tags: str("tags"),
    AppVersion: str("appVersion"),
    Deprecated: meta.deprecated === true,
    Annotations: typeof meta.annotations === "object" && meta.annotations !== null ? meta.annotations : {},
    KubeVersion: str("kubeVersion"),
    Dependencies: list("dependencies"),
    Type: str("type"),
    IsRoot: isRoot,
  };
  return new GoObject({
    typeName: "struct { chart.Metadata; IsRoot bool }",
    kind: "struct",
    fields,
    json: () => ({
      ...Object.fromEntries(
        Object.entries(meta).filter(
          ([, v]) => v !== "" && v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0),
        ),
      ),
      IsRoot: isRoot,
    }),
  });
}
