/** Helm golden cases for Helm's conversions (toYaml, fromYaml, toJson, fromJson, toToml) and Sprig's semver. */
import { helmCase, type HelmCase } from "./helm-golden-support.js";

const V = {
  m: { z: 1, a: "x", k: { deep: [1, 2] }, e: {}, l: [] }, l: [1, "two", null, true, 2.5, { a: 1 }, [1, 2]], f: 1.5, big: 1e21, i: 7, n: null,
  strs: { s: ["true", "1", "", "a: b", "#c", " lead", "y", "no", "1.5", "0x1F", "-", "- x", "ok-word", "x:y", "null", "~", "plain text", "on", "Yes", "2001-12-14", "1e3", ".5", "tab\there", "quote'd", "dq\"x", "@at", "`tick", "%p", "a #b", "x: ", "end:"] },
  multi: { a: "l1\nl2\n", b: "l1\nl2", c: "l1\n\n", d: "  indented\nx", e: "\n" },
  edge: {
    long: "word word word word word word word word word word word word word word word word word word word word word word",
    long80: "123456789 123456789 123456789 123456789 123456789 123456789 123456789 1234567 x y z",
    quotedLong: "#starts with hash and then goes on and on and on and on and on and on and on and on and on",
    emoji: "😀 x", tab: "a\tb", nbsp: "a\u00a0b", ctrl: "a\u0001b\u007f",
    trailingSpaceMulti: "a \nb", endsWithSpace: "line\nend ", crlf: "a\r\nb", uni: "héllo wörld ✓ 中文",
    "a very long key that goes beyond the eighty column limit of the emitter for sure, yes": "v w",
  },
  res: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: 0.25 } },
  toml: { title: "t", n: 1, f: 1.5, b: true, list: [1, 2], strs: ["a", "b"], owner: { name: "x", dob: "1979" }, servers: { alpha: { ip: "10.0.0.1" }, beta: { ip: "10.0.0.2", tags: ["x"] } }, items: [{ a: 1 }, { a: 2 }], nil: null, "key with space": "v" },
};
const c = (t: string, values: Record<string, unknown> = V): HelmCase => helmCase(t, values);

const yaml: string[] = [
  "{{ toYaml .Values.m }}", "{{ toYaml .Values.l }}", "{{ toYaml .Values.strs }}", "{{ toYaml .Values.multi }}", "{{ toYaml .Values.res | nindent 2 }}",
  "{{ toYaml .Values.f }}|{{ toYaml .Values.big }}|{{ toYaml .Values.i }}|{{ toYaml .Values.n }}|{{ toYaml \"s\" }}|{{ toYaml (list) }}|{{ toYaml (dict) }}",
  "{{ toYaml .Values.missing }}", "{{ toYaml (dict \"k\" (list (dict \"a\" 1 \"b\" (list 1 2)) (list 3 4) (dict))) }}", "{{ toYaml .Capabilities.KubeVersion }}",
  "{{ toYamlPretty .Values.m }}", "{{ toYamlPretty .Values.l }}", "{{ toYamlPretty .Values.res }}", "{{ toYamlPretty (dict \"k\" (list (dict \"a\" 1 \"b\" (list 1 2)) (list 3 4))) }}", "{{ toYamlPretty .Values.strs }}",
  "{{ toYamlPretty .Values.multi }}", "{{ toYamlPretty 1 }}|{{ toYamlPretty 1.5 }}|{{ toYamlPretty .Values.i }}|{{ toYamlPretty (dict) }}|{{ toYamlPretty (list) }}",
  "{{ fromYaml \"a: 1\\nb: [x, y]\\nc: {d: true}\" }}", "{{ (fromYaml \"a: 1\").a }} {{ printf \"%T\" (fromYaml \"a: 1\").a }}", "{{ fromYaml \"a: yes\\nb: on\\nc: 2001-12-14\\nd: 0x1F\\ne: 1e3\\nf: ~\" }}", "{{ fromYaml \"- a\\n- b\" }}",
  "{{ fromYaml \"\" }}", "{{ fromYaml \"a: [\" | keys }}", "{{ fromYaml \"x: &a 1\\ny: *a\" }}", "{{ fromYaml \"a: 1\\n---\\nb: 2\" }}", "{{ fromYaml \"1: one\\ntrue: t\" }}",
  "{{ fromYamlArray \"- a\\n- 1\\n- {b: c}\" }}", "{{ fromYamlArray \"a: 1\" }}", "{{ fromYamlArray \"\" }}", "{{ fromYaml (toYaml .Values.m) | toJson }}", "{{ (fromYaml \"a:\\n  b: c\").a.b }}",
  "{{ fromYaml \"big: 12345678901234567890\\nneg: -5\\nfl: 2.50\" }}",
  "{{ toYaml .Values.edge }}", "{{ toYamlPretty .Values.edge }}", "{{ toYaml (dict \"deep\" (dict \"er\" (list .Values.edge.long (dict \"k\" .Values.edge.long)))) }}",
  "annotations:\n  {{- toYaml (dict \"description\" .Values.edge.long) | nindent 2 }}", "{{ toYaml (list .Values.edge.quotedLong .Values.edge.long80) }}",
  ...["a\u0001b", "a\u007fb", "a\u0085b", "\ufeffb", "a\ud7ffb\ue000\ufffe", "x\u00a0"].map((s) => `{{ toYaml (list ${JSON.stringify(s)}) }}|{{ toYamlPretty (list ${JSON.stringify(s)}) }}`),
];

const json: string[] = [
  "{{ toJson .Values.m }}", "{{ toJson .Values.l }}", "{{ toJson \"<a&b>\" }}", "{{ toJson .Values.big }}|{{ toJson 0.0000001 }}|{{ toJson .Values.n }}|{{ toJson .Values.missing }}",
  "{{ toJson .Capabilities.KubeVersion }}", "{{ toJson .Chart.Name }}", "{{ toJson .Release }}",
  "{{ fromJson \"{\\\"a\\\":[1,2],\\\"b\\\":{\\\"c\\\":null}}\" }}", "{{ (fromJson \"{\\\"a\\\":1}\").a }} {{ printf \"%T\" (fromJson \"{\\\"a\\\":1}\").a }}", "{{ fromJson \"[1]\" }}", "{{ fromJson \"not json\" }}",
  "{{ fromJson \"\" }}", "{{ fromJson \"null\" }}", "{{ fromJson \"1\" }}", "{{ fromJson \"\\\"s\\\"\" }}", "{{ fromJsonArray \"[1, \\\"a\\\", null, {\\\"b\\\": true}]\" }}",
  "{{ fromJsonArray \"{}\" }}", "{{ fromJsonArray \"x\" }}", "{{ fromJsonArray \"\" }}", "{{ mustFromJson \"{\\\"a\\\":1}\" }}", "{{ fromJson (toJson .Values.m) }}",
];

const toml: string[] = [
  "{{ toToml .Values.toml }}", "{{ toToml (dict \"a\" 1) }}", "{{ toToml (dict) }}", "{{ toToml (list 1) }}", "{{ toToml (dict \"a\" (dict \"b\" (dict \"c\" 1))) }}",
  "{{ toToml (dict \"s\" \"quote\\\"d\\nline\" \"u\" \"<&>\") }}", "{{ toToml (dict \"f\" 1.0 \"g\" 1e21 \"h\" 0.5) }}", "{{ toToml (dict \"l\" (list (list 1 2) (list \"a\"))) }}", "{{ toToml (dict \"e\" (list)) }}",
  "{{ toToml (dict \"m\" (dict) \"x\" 1) }}",
];

const semver: string[] = [
  "{{ semverCompare \">=1.19-0\" \"v1.30.2\" }} {{ semverCompare \">=1.19-0\" \"v1.18.0\" }} {{ semverCompare \">=1.19-0\" \"v1.30.2-gke.1200\" }}",
  "{{ semverCompare \">=1.19\" \"v1.30.2-gke.1200\" }} {{ semverCompare \">=1.19\" \"1.30\" }} {{ semverCompare \"<1.21\" \"1.20.15\" }}",
  "{{ semverCompare \"~1.2.3\" \"1.2.9\" }} {{ semverCompare \"~1.2.3\" \"1.3.0\" }} {{ semverCompare \"~1\" \"1.9.0\" }} {{ semverCompare \"~1.2\" \"1.2.0\" }}",
  "{{ semverCompare \"^1.2.3\" \"1.9.0\" }} {{ semverCompare \"^1.2.3\" \"2.0.0\" }} {{ semverCompare \"^0.2.3\" \"0.2.9\" }} {{ semverCompare \"^0.2.3\" \"0.3.0\" }} {{ semverCompare \"^0.0.3\" \"0.0.4\" }}",
  "{{ semverCompare \"1.2.x\" \"1.2.7\" }} {{ semverCompare \"1.x\" \"1.9.9\" }} {{ semverCompare \"*\" \"3.0.0\" }} {{ semverCompare \"!=1.2.3\" \"1.2.3\" }} {{ semverCompare \"!=1.2.x\" \"1.3.0\" }}",
  "{{ semverCompare \">1.2\" \"1.2.5\" }} {{ semverCompare \">1.2.x\" \"1.3.0\" }} {{ semverCompare \"<=1.2\" \"1.2.9\" }} {{ semverCompare \"<=1.2.3\" \"1.2.4\" }}",
  "{{ semverCompare \">= 1.2, < 2.0\" \"1.5.0\" }} {{ semverCompare \">=1.2 <2.0\" \"2.0.0\" }} {{ semverCompare \"<1.0 || >=3.0\" \"3.1.0\" }} {{ semverCompare \"1.2 - 1.4\" \"1.4.5\" }}",
  "{{ semverCompare \"=1.2.3\" \"v1.2.3+meta\" }} {{ semverCompare \"1.2.3\" \"1.2.3\" }} {{ semverCompare \">=1.0.0-alpha\" \"1.0.0-beta\" }} {{ semverCompare \">=1.0.0-beta\" \"1.0.0-alpha\" }}",
  "{{ semverCompare \"bad constraint\" \"1.0.0\" }}", "{{ semverCompare \">=1.0\" \"not.a.version\" }}", "{{ semverCompare \">=1.0\" \"01.2.3\" }}", "{{ semverCompare \">=1.0\" \"1.2.3-01\" }}",
  "{{ semverCompare \">=1.19-0\" .Capabilities.KubeVersion.GitVersion }}", "{{ semverCompare \"<1.19-0\" .Capabilities.KubeVersion.Version }}",
  "{{ semver \"1.2.3-beta.1+build.5\" }} {{ (semver \"1.2.3\").Major }} {{ (semver \"v1.2\").Minor }} {{ (semver \"1.2.3-rc1\").Prerelease }} {{ (semver \"1.2.3+m\").Metadata }}",
  "{{ (semver \"v1.2\").Original }} {{ (semver \"1.2.3\").Compare (semver \"1.2.4\") }} {{ (semver \"1.3.0\").GreaterThan (semver \"1.2.9\") }} {{ (semver \"1.0.0\").LessThan (semver \"1.0.0-rc\") }}",
  "{{ semver \"x\" }}", "{{ (semver \"1.2.3\").IncMinor }} {{ (semver \"1.2.3\").IncMajor }} {{ (semver \"1.2.3\").IncPatch }} {{ (semver \"1.2.3-a\").IncPatch }}",
  "{{ printf \"%T\" (semver \"1.0.0\") }} {{ printf \"%T\" (semver \"1.0.0\").Major }}",
];


export const conversionCases: readonly HelmCase[] = [...yaml, ...json, ...toml, ...semver].map((t) => c(t));
