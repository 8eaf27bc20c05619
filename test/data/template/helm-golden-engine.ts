/** Helm golden cases for the engine itself: include, tpl, required, fail, .Files, .Capabilities, missing keys. */
import { helmCase as h, type HelmCase } from "./helm-golden-support.js";

const helpers = `{{- define "chart.name" -}}{{ default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}{{- end }}
{{- define "chart.fullname" -}}
{{- if .Values.fullnameOverride }}{{ .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}{{- end }}{{- end }}
{{- end }}
{{- define "chart.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "chart.name" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
{{- define "rec" -}}{{ if gt (len .) 0 }}{{ first . }}{{ include "rec" (rest .) }}{{ end }}{{- end }}
{{- define "forever" -}}{{ include "forever" . }}{{- end }}
{{- define "boom" -}}{{ required "boom is required" .Values.boom }}{{- end }}
{{- define "nilptr" -}}{{ .Values.a.b.c }}{{- end }}`;

const withHelpers = (text: string, values: Record<string, unknown> = {}): HelmCase => ({ ...h(text, values), templates: { "templates/_helpers.tpl": helpers, "templates/t.yaml": text } });

export const engineCases: readonly HelmCase[] = [
  // missing keys, <no value>, nil pointers
  h("a: {{ .Values.missing }}|{{ .Values.x }}|{{ .Values.m.missing }}", { x: 1, m: {} }),
  h("{{ .Values.a.b }}"), h("{{ .Values.a.b }}", { a: null }), h("{{ .Values.a.b.c }}", { a: {} }),
  h("{{ .Values.missing | default \"d\" }} {{ .Values.n | default \"d\" }}", { n: null }),
  h("{{ print .Values.missing }}|{{ printf \"%v\" .Values.missing }}|{{ index .Values \"missing\" }}"),
  h("{{ .Values.missing }}", {}, { strict: true }), h("{{ .Values.x }}", { x: 2 }, { strict: true }),
  h("{{ .Values.i }} {{ .Values.f }} {{ .Values.big }} {{ .Values.neg }} {{ printf \"%T\" .Values.i }}", { i: 3, f: 1.5, big: 1000000, neg: -2 }),
  h("{{ if .Values.on }}on{{ else }}off{{ end }} {{ with .Values.obj }}{{ .k }}{{ end }}", { on: false, obj: { k: "v" } }),
  h("{{ range $k, $v := .Values.m }}{{ $k }}={{ $v }};{{ end }}", { m: { b: 2, a: 1, c: "x" } }),
  h("{{ range .Values.l }}- {{ . }}\n{{ end }}", { l: ["a", 2, true, null] }),
  h("{{- /* comment */ -}}\nkind: ConfigMap\n{{- if .Values.empty }}\nnothing\n{{- end }}"),
  h(""), h("   \n"), h("{{ .Template.Name }} {{ .Template.BasePath }}"),
  h("{{ .Release.Name }} {{ .Release.Namespace }} {{ .Release.Service }} {{ .Release.IsInstall }} {{ .Release.IsUpgrade }} {{ .Release.Revision }}"),
  h("{{ .Chart.Name }} {{ .Chart.Version }} {{ .Chart.AppVersion }} {{ .Chart.IsRoot }} {{ .Chart.APIVersion }} {{ .Chart.Type | quote }} {{ .Chart.Keywords }} {{ .Chart.Deprecated }}"),
  h("{{ .Chart.nope }}"), h("{{ typeOf .Chart }} {{ typeOf .Files }} {{ typeOf .Capabilities }} {{ typeOf .Release }} {{ kindOf .Chart }}"),
  // Capabilities
  h("{{ .Capabilities.KubeVersion }} {{ .Capabilities.KubeVersion.Version }} {{ .Capabilities.KubeVersion.GitVersion }} {{ .Capabilities.KubeVersion.Major }} {{ .Capabilities.KubeVersion.Minor }}"),
  h("{{ .Capabilities.APIVersions.Has \"apps/v1\" }} {{ .Capabilities.APIVersions.Has \"nope/v1\" }} {{ .Capabilities.APIVersions }}"),
  h("{{ .Capabilities.HelmVersion.Version }}"), h("{{ len .Capabilities.APIVersions }} {{ range .Capabilities.APIVersions }}{{ . }},{{ end }}"),
  h("{{ if semverCompare \">=1.19-0\" .Capabilities.KubeVersion.GitVersion }}networking.k8s.io/v1{{ else }}extensions/v1beta1{{ end }}"),
  h("{{ .Capabilities.KubeVersion }}", {}, { kubeVersion: "1.28" }), h("{{ .Capabilities.KubeVersion.Version }}", {}, { kubeVersion: "v1.29.3-gke.1200" }),
  h("{{ if .Capabilities.APIVersions.Has \"autoscaling/v2\" }}v2{{ end }}"), h("{{ .Capabilities.APIVersions.Has }}"), h("{{ .Capabilities.APIVersions.Nope }}"),
  h("{{ .Capabilities.KubeVersion.GitVersion \"x\" }}"),
  // .Files
  h("{{ .Files.Get \"conf/a.conf\" }}|{{ .Files.Get \"nope\" }}", {}, { files: { "conf/a.conf": "a=1\n", "conf/b.conf": "b=2", "other/c.txt": "c" } }),
  h("{{ (.Files.Glob \"conf/*\").AsConfig }}", {}, { files: { "conf/a.conf": "a=1\nx=2\n", "conf/b.conf": "b=2", "other/c.txt": "c" } }),
  h("{{ (.Files.Glob \"conf/*\").AsSecrets }}", {}, { files: { "conf/a.conf": "a=1\n", "conf/b.conf": "b=2" } }),
  h("{{ (.Files.Glob \"**.txt\").AsConfig }}|{{ (.Files.Glob \"nomatch/*\").AsConfig }}", {}, { files: { "a/b/c.txt": "deep", "top.txt": "top", "x.yaml": "y" } }),
  h("{{ range $path, $_ := .Files.Glob \"conf/*\" }}{{ $path }}={{ $.Files.Get $path | trim }};{{ end }}", {}, { files: { "conf/a.conf": "1\n", "conf/b.conf": "2" } }),
  h("{{ range .Files.Lines \"l.txt\" }}[{{ . }}]{{ end }} {{ len (.Files.Lines \"nope\") }}", {}, { files: { "l.txt": "one\ntwo\n\nthree\n" } }),
  h("{{ .Files.GetBytes \"a\" | toString }} {{ printf \"%s\" (.Files.GetBytes \"a\") }}", {}, { files: { a: "hi" } }),
  h("{{ (.Files.Glob \"{a,b}.txt\").AsConfig }}|{{ (.Files.Glob \"[ab].txt\").AsConfig }}|{{ (.Files.Glob \"?.txt\").AsConfig }}", {}, { files: { "a.txt": "A", "b.txt": "B", "c.txt": "C" } }),
  h("{{ .Files.Get }}"), h("{{ .Files.Nope }}"),
  h("data:\n{{ (.Files.Glob \"files/*\").AsConfig | indent 2 }}", {}, { files: { "files/app.properties": "a=1\nb=2\n", "files/empty": "" } }),
  // include / tpl / helpers
  withHelpers("name: {{ include \"chart.fullname\" . }}\nlabels:\n  {{- include \"chart.labels\" . | nindent 2 }}", { fullnameOverride: "" }),
  withHelpers("{{ include \"chart.fullname\" . }}", { nameOverride: "rel-x" }), withHelpers("{{ include \"chart.fullname\" . }}", { fullnameOverride: "a-very-long-name-that-goes-on-and-on-and-on-and-on-and-on-and-on-x-" }),
  withHelpers("{{ include \"rec\" (list 1 2 3) }}"), withHelpers("{{ include \"nope\" . }}"), withHelpers("{{ include \"boom\" . }}"),
  withHelpers("{{ include \"boom\" . }}", { boom: "ok" }), withHelpers("{{ include \"nilptr\" . }}", { a: {} }),
  withHelpers("{{ template \"chart.name\" . }}"), withHelpers("{{ include \"chart.name\" (dict \"Chart\" (dict \"Name\" \"x\") \"Values\" (dict)) }}"),
  withHelpers("{{ include \"rec\" (until 200) | len }}"),
  h("{{ tpl .Values.t . }}", { t: "{{ .Release.Name }}-{{ .Values.x }}", x: "y" }), h("{{ tpl \"{{ .missing }}|{{ .a }}\" .Values }}", { a: 1 }),
  h("{{ tpl \"{{ define \\\"inner\\\" }}I{{ end }}{{ include \\\"inner\\\" . }}\" . }}"), h("{{ tpl \"{{ .x.y.z }}\" .Values }}", { x: {} }),
  h("{{ tpl \"{{ nope }}\" . }}"), h("{{ tpl \"{{ tpl \\\"{{ .Values.a }}\\\" . }}\" . }}", { a: "nested" }),
  h("{{ tpl (toYaml .Values.cfg) . }}", { cfg: { name: "{{ .Release.Name }}", n: 1 } }), h("{{ tpl \"{{ fail \\\"no\\\" }}\" . }}"),
  h("{{ tpl \"{{ required \\\"need v\\\" .Values.v }}\" . }}"), h("{{ tpl \"{{ include \\\\\\\"x\\\\\\\" . }}\" . }}"),
  { ...h("{{ include \"shared\" . }}"), templates: { "templates/t.yaml": "{{ include \"shared\" . }}", "templates/_a.tpl": "{{ define \"shared\" }}from a{{ end }}", "templates/_b.tpl": "{{ define \"shared\" }}from b{{ end }}" } },
  { ...h(""), templates: { "templates/a.yaml": "{{ define \"x\" }}a{{ end }}A", "templates/b.yaml": "B{{ template \"x\" }}", "templates/_h.tpl": "{{ define \"x\" }}h{{ end }}", "templates/NOTES.txt": "notes {{ .Release.Name }}" } },
  { ...h(""), templates: { "templates/t.yaml": "ok", "templates/bad.yaml": "{{ if }}" } }, { ...h(""), templates: { "templates/bad.yaml": "a\nb {{ nope }}" } },
  { ...h(""), templates: { "templates/t.yaml": "{{ include \"x\" . }}", "templates/_h.tpl": "line1\n{{ define \"x\" }}\n  {{ .Values.a.b }}\n{{ end }}" } },
  { ...h(""), templates: { "templates/a.yaml": "{{ $_ := set .Values \"seen\" \"yes\" }}a", "templates/b.yaml": "b={{ .Values.seen }}" } },
  // required / fail
  h("{{ required \"x is required\" .Values.x }}"), h("{{ required \"x is required\" .Values.x }}", { x: "" }), h("{{ required \"x\" .Values.x }}", { x: 0 }),
  h("{{ required \"x\" .Values.x }}", { x: false }), h("line\n  {{ fail \"stop here\" }}"), h("{{ fail (printf \"bad value %q\" .Values.v) }}", { v: "q" }),
  h("{{ .Values.x | required \"piped\" }}"), h("{{ lookup \"v1\" \"Secret\" \"ns\" \"s\" }}|{{ (lookup \"v1\" \"Secret\" \"ns\" \"s\").data }}"),
  h("{{ getHostByName \"example.com\" }}|{{ len (lookup \"v1\" \"Pod\" \"\" \"\") }}"),
  // subcharts
  { ...h("{{ .Values.sub.x }}", { sub: { x: 1 }, top: "t" }), subcharts: [{ name: "sub", templates: { "templates/s.yaml": "{{ .Chart.Name }} {{ .Chart.IsRoot }} {{ .Values.x }} {{ .Values.top }} {{ .Template.Name }} {{ include \"p\" . }}" } }], templates: { "templates/t.yaml": "{{ .Subcharts.sub.Values.x }}", "templates/_p.tpl": "{{ define \"p\" }}parent-p{{ end }}" } },
  { ...h("", {}), name: "lib-user", subcharts: [{ name: "lib", type: "library", templates: { "templates/_l.tpl": "{{ define \"lib.x\" }}L{{ end }}", "templates/ignored.yaml": "not rendered" } }], templates: { "templates/t.yaml": "{{ include \"lib.x\" . }}" } },
];
