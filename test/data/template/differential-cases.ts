/**
 * Cases for src/template/engine/differential.test.ts: a template `t` and its JSON data. Each
 * runs through Go's real engine and through ours; both must produce the same output or the same
 * error message.
 * Grouped by construct; error cases sit beside the constructs they exercise.
 */
export interface DifferentialCase {
  readonly t: string;
  readonly data?: unknown;
}

const d = { a: 1, s: "str", f: 1.5, b: true, n: null, l: [1, "two", null, true, 2.5], m: { z: 1, a: "x", k: { deep: [1, 2] } }, e: [], o: {}, big: 1e21, mil: 1000000, neg: -3, zero: 0, es: "" };
const c = (t: string, data: unknown = d): DifferentialCase => ({ t, data });

export const differentialCases: readonly DifferentialCase[] = [
  // text, comments and trim markers
  c(""), c("plain text"), c("a\nb\n"), c("{{/* comment */}}x"), c("a {{- /* c */ -}} b"), c("a  {{- 1 -}}  b"),
  c("a\n\n{{- 1}}\n\nb"), c("{{1 -}}\n  x"), c("{{-1}}"), c("{{- -1 -}}"), c("x{{- .a}}"), c("{{.a -}}\t\ny"),
  c("{{/* unclosed"), c("{{/* a */ 1}}"), c("{{ /* a */ }}"), c("a{{- /* c */}}b"), c("{{/* multi\nline */}}z"),
  // fields, missing keys (the oracle uses missingkey=error), nil handling
  c("{{.a}}"), c("{{.s}}"), c("{{.f}}"), c("{{.b}}"), c("{{.n}}"), c("{{.l}}"), c("{{.m}}"), c("{{.e}}"), c("{{.o}}"),
  c("{{.big}}"), c("{{.mil}}"), c("{{.neg}}"), c("{{.zero}}"), c("{{.es}}"), c("{{.m.k.deep}}"), c("{{.m.a}}"),
  c("{{.missing}}"), c("{{.m.missing}}"), c("{{.n.x}}"), c("{{.s.x}}"), c("{{.a.x}}"), c("{{.l.x}}"), c("{{.m.k.x.y}}"),
  c("{{.}}"), c("{{.}}", [1, 2]), c("{{.}}", "s"), c("{{.}}", 3.25), c("{{.}}", null), c("{{.x}}", null), c("{{.x}}", [1]),
  c("{{$}}"), c("{{$.a}}"), c("{{$.m.a}}"), c("{{ .a 1 }}"), c("{{ .m.a .b }}"), c("{{.a | .s}}"),
  c("{{.A}}", { A: 1, a: 2 }), c("{{.a_b}}", { a_b: 3 }), c("{{.ü}}", { "ü": 4 }), c("{{.x1}}", { x1: 5 }),
  // numbers as Go prints float64 and int
  c("{{.x}}", { x: 0.1 }), c("{{.x}}", { x: 1e20 }), c("{{.x}}", { x: 123456 }), c("{{.x}}", { x: 1234567 }),
  c("{{.x}}", { x: 1e-5 }), c("{{.x}}", { x: 0.0001 }), c("{{.x}}", { x: -2.5e-10 }), c("{{.x}}", { x: 3.14159265358979 }),
  c("{{.x}}", { x: 100 }), c("{{.x}}", { x: 1.7976931348623157e308 }), c("{{.x}}", { x: 5e-324 }), c("{{.x}}", { x: 123456789012 }),
  c("{{1}}"), c("{{-5}}"), c("{{1.0}}"), c("{{1e3}}"), c("{{0x1F}}"), c("{{0o17}}"), c("{{017}}"), c("{{0b101}}"), c("{{1_000}}"),
  c("{{'a'}}"), c("{{'\\n'}}"), c("{{1.5e-7}}"), c("{{0x1p-2}}"), c("{{.5}}"), c("{{+3}}"), c("{{9223372036854775807}}"),
  c("{{9223372036854775808}}"), c("{{18446744073709551616}}"), c("{{08}}"), c("{{1__0}}"), c("{{1e}}"), c("{{0x}}"), c("{{3abc}}"),
  c("{{'ab'}}"), c("{{''}}"), c("{{1.2.3}}"),
  // strings and literals
  c('{{"hi"}}'), c("{{`raw\\n`}}"), c('{{"a\\tb"}}'), c('{{"\\u00e9"}}'), c('{{"\\x41"}}'), c('{{"unterminated}}'), c("{{`unterminated}}"),
  c('{{"bad \\q escape"}}'), c("{{true}}"), c("{{false}}"), c('{{"a" "b"}}'), c("{{nil}}"), c('{{"a".x}}'), c("{{true.x}}"),
  // variables
  c("{{$x := 1}}{{$x}}"), c("{{$x := .s}}{{$x}}"), c("{{$x := 1}}{{$x = 2}}{{$x}}"), c("{{$x}}"), c("{{$x = 1}}"),
  c("{{$x := .m}}{{$x.a}}"), c("{{$x := .m}}{{$x.k.deep}}"), c("{{$x := .n}}{{$x.a}}"), c("{{$ := 1}}{{$}}"),
  c("{{if true}}{{$x := 1}}{{end}}{{$x}}"), c("{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}"), c("{{$x := 1}}{{$x 2}}"),
  c("{{$x, $y := 1}}"), c("{{$x := 1}}{{with $x := 2}}{{$x}}{{end}}{{$x}}"), c("{{$a := 1}}{{$b := $a}}{{$b}}"),
  // pipelines and parentheses
  c('{{"x" | printf "%s-%s" "y"}}'), c("{{.a | printf \"%v\"}}"), c("{{1 | 2}}"), c("{{. | .}}"), c("{{(1)}}"), c("{{(.m).a}}"),
  c("{{(.m.k).deep}}"), c("{{(len .l) | printf \"%d\"}}"), c("{{ ( 1 ) }}"), c("{{(1 2)}}"), c("{{()}}"), c("{{(}}"), c("{{)}}"),
  c("{{ | }}"), c("{{.a |}}"), c("{{printf \"%d\" (len .l)}}"), c('{{print "a" | print "b"}}'), c("{{(.n).x}}"), c("{{(.missing).x}}"),
  // if / else if / else
  c("{{if .b}}yes{{end}}"), c("{{if .n}}yes{{else}}no{{end}}"), c("{{if .zero}}a{{else if .a}}b{{else}}c{{end}}"),
  c("{{if .es}}a{{else if .e}}b{{else if .o}}c{{else}}d{{end}}"), c("{{if .l}}L{{end}}"), c("{{if .m}}M{{end}}"),
  c("{{if .f}}F{{end}}"), c("{{if 0}}x{{else}}y{{end}}"), c("{{if 0.0}}x{{else}}y{{end}}"), c('{{if ""}}x{{else}}y{{end}}'),
  c("{{if}}{{end}}"), c("{{if .a}}"), c("{{if .a}}{{else}}{{else}}{{end}}"), c("{{else}}"), c("{{end}}"), c("{{if .a}}{{end}}{{end}}"),
  c("{{if .missing}}x{{end}}"), c("{{if $x := .a}}{{$x}}{{end}}"), c("{{if .a}}a{{else with .m}}{{.a}}{{end}}"),
  // with
  c("{{with .m}}{{.a}}{{end}}"), c("{{with .n}}x{{else}}none{{end}}"), c("{{with .s}}{{.}}{{end}}"), c("{{with .s}}{{.x}}{{end}}"),
  c("{{with .zero}}x{{else with .a}}{{.}}{{end}}"), c("{{with $v := .m.k}}{{$v.deep}}{{end}}"), c("{{with .e}}x{{else}}empty{{end}}"),
  c("{{with .l}}{{index . 1}}{{end}}"), c("{{with}}{{end}}"),
  // range
  c("{{range .l}}[{{.}}]{{end}}"), c("{{range $i, $e := .l}}{{$i}}={{$e}};{{end}}"), c("{{range $e := .l}}{{$e}},{{end}}"),
  c("{{range $k, $v := .m}}{{$k}}:{{$v}} {{end}}"), c("{{range .m}}{{.}} {{end}}"), c("{{range .e}}x{{else}}empty{{end}}"),
  c("{{range .o}}x{{else}}empty{{end}}"), c("{{range .n}}x{{else}}nil{{end}}"), c("{{range .s}}x{{end}}"), c("{{range .f}}x{{end}}"),
  c("{{range .b}}x{{end}}"), c("{{range 3}}{{.}}{{end}}"), c("{{range $i := 4}}{{$i}}{{end}}"), c("{{range 0}}x{{else}}none{{end}}"),
  c("{{range -2}}x{{else}}neg{{end}}"), c("{{range $i, $e := 3}}{{end}}"), c("{{range .l}}{{if eq . 2.5}}{{break}}{{end}}{{.}},{{end}}"),
  c("{{range .l}}{{if not .}}{{continue}}{{end}}{{.}},{{end}}"), c("{{break}}"), c("{{continue}}"), c("{{range .l}}{{break 1}}{{end}}"),
  c("{{range .l}}{{.x}}{{end}}"), c("{{range .l}}{{end}}"), c("{{range $i, $e := .m}}{{$i}}{{end}}"), c("{{range $a, $b, $c := .l}}{{end}}"),
  c("{{range $x = .l}}{{end}}"), c("{{$x := 0}}{{range $x = .l}}{{end}}{{$x}}"), c("{{$i := 0}}{{$e := 0}}{{range $i, $e = .l}}{{end}}{{$i}}/{{$e}}"),
  c("{{range .l}}{{range $.m}}{{.}}{{end}};{{end}}"), c("{{range $i, $_ := .l}}{{$i}}{{end}}"), c("{{range .m.k.deep}}{{.}}{{end}}"),
  c("{{range $k, $v := .}}{{$k}}={{$v}};{{end}}", { b: 2, a: 1, c: { x: 1 }, "B": 0, "10": 1, "9": 2 }),
  c("{{range .}}{{.}}{{end}}", [[1, 2], { a: 1 }, "s"]), c("{{range .l}}{{$}}{{break}}{{end}}", { l: [1] }),
  c("{{range 2}}{{range 2}}{{break}}{{end}}x{{end}}"), c("{{range .l}}{{else}}{{break}}{{end}}"), c("{{range 1}}{{.x}}{{end}}"),
  // define / template / block
  c('{{define "x"}}X{{end}}{{template "x"}}'), c('{{define "x"}}[{{.}}]{{end}}{{template "x" .a}}'), c('{{template "nope"}}'),
  c('{{define "x"}}{{.a}}{{end}}{{template "x" .m}}'), c('{{block "b" .s}}<{{.}}>{{end}}'), c('{{define "b"}}override{{end}}{{block "b" .}}default{{end}}'),
  c('{{define "x"}}{{$}}{{end}}{{template "x" 7}}'), c('{{define "r"}}{{if .}}{{.}}{{template "r" (slice . 1)}}{{end}}{{end}}{{template "r" "abc"}}'),
  c('{{define "x"}}a{{end}}{{define "x"}}b{{end}}'), c('{{define "x"}}{{end}}{{define "x"}}b{{end}}{{template "x"}}'), c("{{define x}}{{end}}"),
  c('{{define "x"}}'), c('{{define "x"}}{{else}}{{end}}'), c('{{template "x" 1 2}}'), c("{{template .a}}"), c('{{define "e"}}{{.x.y}}{{end}}{{template "e" .}}'),
  c('{{define "loop"}}{{template "loop" .}}{{end}}{{template "loop"}}'), c('{{template "x"}}{{define "x"}}late{{end}}'),
  c('{{define "x"}}{{$x}}{{end}}'), c('{{block "b"}}{{end}}'), c('{{define "a"}}A{{template "b"}}{{end}}{{define "b"}}B{{end}}{{template "a"}}'),
  c('{{define "t"}}{{break}}{{end}}'), c('{{with .m}}{{template "q" .a}}{{end}}{{define "q"}}({{.}}){{end}}'),
  // and / or / not
  c("{{and 1 0}}"), c("{{and 1 2}}"), c("{{or 0 2}}"), c("{{or 0 \"\"}}"), c("{{and}}"), c("{{not 0}}"), c("{{not .l}}"), c("{{not}}"),
  c("{{not 1 2}}"), c("{{and .a .s .b}}"), c("{{or .n .missing}}"), c("{{and .zero .missing}}"), c("{{or .a .missing}}"),
  c("{{and .n 1}}"), c("{{or .n .e}}"), c("{{1 | and 2}}"), c("{{0 | or 0}}"), c("{{and 1 (or 0 3)}}"), c("{{if and .a .b}}y{{end}}"),
  // comparisons
  c("{{eq 1 1}}"), c("{{eq 1 2}}"), c("{{eq 1 2 1}}"), c('{{eq "a" "a"}}'), c("{{eq .a 1}}"), c("{{eq .a 1.0}}"), c("{{eq .f 1.5}}"),
  c("{{eq .s \"str\"}}"), c("{{eq .b true}}"), c("{{eq .n nil}}"), c("{{eq nil nil}}"), c("{{eq .m .m}}"), c("{{eq .l .l}}"),
  c("{{eq .m .l}}"), c("{{eq 1}}"), c("{{eq}}"), c("{{eq 1 \"1\"}}"), c("{{eq .n 1}}"), c("{{eq 1 .n}}"), c("{{eq .missing 1}}"),
  c("{{ne 1 2}}"), c("{{ne \"a\" \"a\"}}"), c("{{ne .a 1.0}}"), c("{{ne 1 1 1}}"), c("{{lt 1 2}}"), c("{{lt 2 1}}"), c("{{lt 1.5 2.5}}"),
  c('{{lt "a" "b"}}'), c("{{lt 1 2.0}}"), c("{{lt true false}}"), c("{{lt .n 1}}"), c("{{lt .l .l}}"), c("{{le 2 2}}"), c("{{le 3 2}}"),
  c("{{gt 3 2}}"), c("{{gt 2 2}}"), c("{{ge 2 2}}"), c("{{ge 1 2}}"), c('{{gt "b" "a"}}'), c("{{ge .f 1.5}}"), c("{{le .a .f}}"),
  c("{{eq 'a' 97}}"), c("{{eq (index \"a\" 0) 97}}"), c("{{lt (index \"a\" 0) 98}}"), c("{{eq true true false}}"), c("{{lt 1}}"),
  // len / index / slice
  c("{{len .l}}"), c("{{len .m}}"), c("{{len .s}}"), c('{{len "héllo"}}'), c("{{len .e}}"), c("{{len .a}}"), c("{{len .n}}"), c("{{len nil}}"),
  c("{{len 3}}"), c("{{len}}"), c("{{index .l 0}}"), c("{{index .l 1}}"), c("{{index .l 2}}"), c("{{index .l 9}}"), c("{{index .l -1}}"),
  c("{{index .l 5}}"), c("{{index .l 1.0}}"), c('{{index .l "0"}}'), c("{{index .l nil}}"), c('{{index .m "a"}}'), c('{{index .m "nope"}}'),
  c("{{index .m 1}}"), c('{{index .m "k" "deep" 1}}'), c("{{index .s 0}}"), c("{{index .s 3}}"), c("{{index .a 0}}"), c("{{index .n 0}}"),
  c("{{index nil 0}}"), c("{{index .l}}"), c("{{index}}"), c("{{index .l 2 0}}"), c("{{index .m nil}}"), c('{{(index .m "k").deep}}'),
  c("{{slice .l 1 3}}"), c("{{slice .l 2}}"), c("{{slice .l}}"), c("{{slice .s 1 2}}"), c("{{slice .s 1}}"), c("{{slice .l 3 1}}"),
  c("{{slice .l 0 9}}"), c("{{slice .s 0 1 2}}"), c("{{slice .l 0 1 2}}"), c("{{slice .l 0 2 1}}"), c("{{slice .a 0}}"), c("{{slice nil 0}}"),
  c("{{slice .l 1 2 3 4}}"), c('{{slice .l "a"}}'), c("{{slice .m 0}}"), c("{{index (slice .l 1) 0}}"),
  // print / printf / println
  c("{{print 1 2}}"), c('{{print "a" "b"}}'), c('{{print 1 "a" 2}}'), c("{{print .n}}"), c("{{print .missing}}"), c("{{print nil}}"),
  c("{{print .l .m}}"), c("{{print}}"), c("{{println 1 2}}"), c('{{println "a" "b"}}'), c("{{println}}"), c("{{print 1.5 true}}"),
  c('{{printf "%d" 3}}'), c('{{printf "%d" .a}}'), c('{{printf "%s" .a}}'), c('{{printf "%v" .f}}'), c('{{printf "%.2f" .f}}'),
  c('{{printf "%5d|%-5d|%05d" 42 42 42}}'), c('{{printf "%x %X %o %b" 255 255 8 5}}'), c('{{printf "%#x %#o" 255 8}}'), c('{{printf "%+d % d" 5 5}}'),
  c('{{printf "%q" "hi\\n"}}'), c('{{printf "%q" 65}}'), c('{{printf "%c" 65}}'), c('{{printf "%U" 65}}'), c('{{printf "%t" true}}'),
  c('{{printf "%t" 1}}'), c('{{printf "%e" 1234.5678}}'), c('{{printf "%E" 0.000123}}'), c('{{printf "%g" 1e21}}'), c('{{printf "%g" 100000.0}}'),
  c('{{printf "%.3g" 3.14159}}'), c('{{printf "%.0f" 0.5}}'), c('{{printf "%.0f" 1.5}}'), c('{{printf "%.0f" 2.5}}'), c('{{printf "%.1f" 0.25}}'),
  c('{{printf "%.2f" 1.005}}'), c('{{printf "%8.3f|" 3.14159}}'), c('{{printf "%-8.3f|" 3.14159}}'), c('{{printf "%08.3f" -3.14159}}'),
  c('{{printf "%f" .big}}'), c('{{printf "%v" .mil}}'), c('{{printf "%.10s" "abcdefghijklmno"}}'), c('{{printf "%5s|%-5s|" "ab" "ab"}}'),
  c('{{printf "%x" "hi"}}'), c('{{printf "%X" "hi"}}'), c('{{printf "%T" .a}}'), c('{{printf "%T" .l}}'), c('{{printf "%T" .m}}'),
  c('{{printf "%T" .n}}'), c('{{printf "%T" 1}}'), c('{{printf "%T" "s"}}'), c('{{printf "%T" (index .l 0)}}'), c('{{printf "%T" (len .l)}}'),
  c('{{printf "%d"}}'), c('{{printf "%d %d" 1}}'), c('{{printf "x" 1}}'), c('{{printf "%d" 1 "a" nil}}'), c('{{printf "%!"}}'), c('{{printf "%"}}'),
  c('{{printf "%z" 1}}'), c('{{printf "%d" "s"}}'), c('{{printf "%s" nil}}'), c('{{printf "%d" .l}}'), c('{{printf "%s" .l}}'), c('{{printf "%v" .m}}'),
  c('{{printf "%d" .m}}'), c('{{printf "%%"}}'), c('{{printf "%5.1f%%" 99.5}}'), c('{{printf "%*d" 5 1}}'), c('{{printf "%.*f" 2 3.14159}}'),
  c('{{printf "%v %v" .b .s}}'), c('{{printf "%s" .b}}'), c('{{printf "%6.2v" 3.14159}}'), c('{{printf "%q" .l}}'), c("{{printf 1}}"),
  c('{{printf "%v" 1e-7}}'), c('{{printf "%g" 1e-5}}'), c('{{printf "%.3e" 0.0}}'), c('{{printf "%G" 1e100}}'), c('{{printf "%+.2e" 12345.0}}'),
  // html / js / urlquery
  c('{{html "<a href=\\"x\\">&\'</a>"}}'), c("{{html .l}}"), c("{{html 1 2}}"), c("{{html nil}}"), c("{{html}}"), c('{{html "a" "b"}}'),
  c('{{js "a\'b\\"c<d>e&f=g\\\\h"}}'), c('{{js "line\\nbreak\\t\\u0001"}}'), c('{{js "é ü \\u00a0"}}'), c("{{js .m}}"), c("{{js 1 nil}}"),
  c('{{urlquery "a b&c=d/é?"}}'), c('{{urlquery "safe-_.~"}}'), c("{{urlquery .l}}"), c("{{urlquery}}"), c('{{"x y" | urlquery}}'),
  // call and functions
  c("{{call .a}}"), c("{{call .n}}"), c("{{call .missing}}"), c("{{call nil}}"), c("{{call}}"), c("{{nope}}"), c("{{nope 1}}"), c("{{.a | nope}}"),
  c("{{len .l 1}}"), c("{{printf}}"), c("{{print | print}}"), c("{{index .l | len}}"), c("{{. | len}}"), c('{{"abc" | len}}'), c("{{.l | len}}"),
  // lexer and parser errors
  c("{{"), c("{{.a"), c("{{.a}"), c("}}"), c("{{.a}}}}"), c("{{$}}x{{"), c("{{.a b}}"), c("{{.a.}}"), c("{{..}}"), c("{{.a..b}}"), c("{{#}}"),
  c("{{@}}"), c("{{ \u00e9 }}"), c("{{ \u2603 }}"), c("{{a:=1}}"), c("{{$x:1}}"), c("{{$x := }}"), c("{{1 := 2}}"), c("{{.a =}}"),
  c("{{(1}}"), c("{{1)}}"), c("{{.a\n.b}}"), c("line1\n{{.a\nline2"), c("a\nb\n{{if}}"), c("x\n{{end}}"), c("{{if 1}}\n\n{{else}}\n"),
  c("{{$x.y := 1}}"), c("{{range .l | len}}{{end}}"), c("{{with 1}}{{else with}}{{end}}"), c("{{if 1}}{{else if}}{{end}}"),
  c("{{template}}"), c("{{template 1}}"), c('{{template "a" |}}'), c("{{block}}"), c('{{block "x" 1}}'), c("{{- }}"), c("{{ -}}"),
  c("{{-}}"), c("{{ - }}"), c("{{.a-}}"), c("{{.a -}}"), c("{{3-}}"), c("{{ 3 -}}"), c("{{'\\z'}}"), c("{{'\n'}}"),
  c("{{nil | print}}"), c("{{1 | 2 | 3}}"), c('{{print 1 | "x"}}'), c("{{.a | true}}"), c("{{.a | .}}"),
  // miscellaneous combinations resembling RGD templates
  c("replicas: {{.spec.replicas}}\nimage: {{.spec.image | printf \"%q\"}}", { spec: { replicas: 3, image: "nginx:1.27" } }),
  c("{{if .spec.ingress.enabled}}true{{else}}false{{end}}", { spec: { ingress: { enabled: false } } }),
  c("{{range $i, $p := .spec.ports}}- port: {{$p.port}}\n{{end}}", { spec: { ports: [{ port: 80 }, { port: 443 }] } }),
  c("{{ .metadata.name }}-svc", { metadata: { name: "my-nginx" } }), c("{{ .children.service.spec.clusterIP }}", { children: { service: { spec: {} } } }),
  c("{{ with .spec.env }}{{ range $k, $v := . }}{{ $k }}={{ $v }}\n{{ end }}{{ end }}", { spec: { env: { B: "2", A: "1" } } }),
  c("labels:\n{{- range $k, $v := .labels }}\n  {{ $k }}: {{ $v | printf \"%q\" }}\n{{- end }}", { labels: { app: "web", tier: "fe" } }),
  c("{{ if and .a (gt (len .l) 2) }}big{{ end }}"), c("{{ $n := len .l }}{{ if ge $n 5 }}{{ $n }}{{ end }}"),
];
