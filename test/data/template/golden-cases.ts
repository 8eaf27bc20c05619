/**
 * Cases checked against real Go (text/template + Sprig v3.3.0 + Helm's toYaml/required, built
 * from go/template-oracle by scripts/refresh-template-golden.mjs) for what the WASM oracle cannot
 * show: Sprig, int64 numbers (the dialect's rule), and missingkey=default/zero. Expected results
 * live in test/data/template/golden.json; refresh them only on purpose.
 */
export interface GoldenCase {
  readonly t: string;
  readonly data?: unknown;
  readonly missingKey?: "default" | "zero" | "error";
  readonly integers?: "int64" | "float64";
}

const d = { a: 1, s: " Hello World ", f: 1.5, b: true, n: null, l: [1, "two", null, true], m: { z: 1, a: "x", k: { deep: [1, 2] } }, e: [], o: {}, es: "", mil: 1000000, ml: "line1\nline2\n" };
const c = (t: string, data: unknown = d, extra: Omit<GoldenCase, "t" | "data"> = {}): GoldenCase => ({ t, data, ...extra });
const f64 = (t: string, data: unknown = d): GoldenCase => c(t, data, { integers: "float64" });

export const goldenCases: readonly GoldenCase[] = [
  // missingkey default / zero, and int64 numbers
  c("{{.missing}}"), c("{{.m.missing}}"), c("{{.missing.x}}"), c("{{.n.x}}"), c("{{.missing}}", d, { missingKey: "zero" }),
  c("{{.m.nope.x}}", d, { missingKey: "zero" }), c("{{.missing}}", d, { missingKey: "error" }), c("{{index .m \"nope\"}}"),
  c("{{if .missing}}a{{else}}b{{end}}"), c("{{range .missing}}x{{else}}none{{end}}"), c("{{len .missing}}"), c("{{print .missing}}"),
  c("{{.a}} {{.mil}} {{.f}}"), f64("{{.a}} {{.mil}} {{.f}}"), c("{{eq .a 1}}"), f64("{{eq .a 1}}"), c("{{printf \"%T %T\" .a .f}}"),
  c("{{printf \"%d\" .mil}}"), c("{{lt .a 2}}"), c("{{range .a}}x{{end}}", { a: 3 }), c("{{index .l .a}}"), c("{{slice .l .a}}"),
  c("{{ ge (.x | default 0) 1 }}", { x: 2 }), c("{{ ge (.x | default 0) 1 }}", {}), c("{{.x}}", { x: 12345678901234 }), c("{{.x}}", { x: -7 }),
  // default / empty / coalesce / ternary / required / fail
  c("{{default \"d\" .missing}}"), c("{{default \"d\" .es}}"), c("{{default \"d\" .s}}"), c("{{default 5 .zero}}", { zero: 0 }),
  c("{{.missing | default \"x\"}}"), c("{{default \"d\"}}"), c("{{default \"d\" .e}}"), c("{{default \"d\" .o}}"), c("{{default \"d\" false}}"),
  c("{{default \"d\" .n}}"), c("{{empty .es}} {{empty .s}} {{empty .e}} {{empty .o}} {{empty .n}} {{empty 0}} {{empty .b}}"),
  c("{{coalesce .n .es .s}}"), c("{{coalesce .n .es}}"), c("{{coalesce}}"), c("{{ternary \"y\" \"n\" .b}}"), c("{{ternary 1 2 false}}"),
  c("{{ternary 1 2 .a}}"), c("{{required \"need x\" .missing}}"), c("{{required \"need s\" .es}}"), c("{{required \"ok\" .a}}"),
  c("{{fail \"boom\"}}"), c("{{required \"need\" .n}}"),
  // strings
  c("{{quote .s}}"), c("{{quote .a .f .n \"x\"}}"), c("{{squote .s}}"), c("{{squote .a .n}}"), c("{{quote}}"), c("{{quote .l}}"),
  c("{{upper .s}}"), c("{{lower .s}}"), c("{{title \"hello wide_world-x y.z\"}}"), c("{{trim .s}}"), c("{{trim \"\\t x \\n\"}}"),
  c("{{trimPrefix \" He\" .s}}"), c("{{trimSuffix \"ld \" .s}}"), c("{{replace \"l\" \"L\" .s}}"), c("{{replace \"\" \"-\" \"abc\"}}"),
  c("{{contains \"World\" .s}}"), c("{{hasPrefix \" H\" .s}}"), c("{{hasSuffix \"x\" .s}}"), c("{{upper .a}}"), c("{{upper .missing}}"),
  c("{{upper .n}}"), c("{{.a | upper}}"), c("{{indent 2 .ml}}"), c("{{nindent 4 \"a\\nb\"}}"), c("{{indent 0 \"x\"}}"), c("{{indent \"2\" \"x\"}}"),
  c("{{indent .a \"x\"}}"), c("{{b64enc \"hello, world\"}}"), c("{{b64dec \"aGVsbG8=\"}}"), c("{{b64dec \"not base64!\"}}"), c("{{b64dec \"aGVsbG8\"}}"),
  c("{{sha256sum \"abc\"}}"), c("{{regexMatch \"^[a-z]+$\" \"abc\"}}"), c("{{regexMatch \"^[a-z]+$\" \"aBc\"}}"), c("{{regexMatch \"(?i)^[a-z]+$\" \"aBc\"}}"),
  c("{{regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"${1}W\"}}"), c("{{regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"$1W\"}}"), c("{{regexReplaceAll \"[0-9]+\" \"a1b22\" \"#\"}}"), c("{{regexReplaceAll \"a*\" \"baaac\" \"X\"}}"), c("{{regexMatch \"\\\\Aab\\\\z\" \"ab\"}}"), c("{{regexMatch \"^(a+)+$\" \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\"}}"), c("{{regexReplaceAll \"(?P<w>[a-z]+)\" \"ab cd\" \"<$w>\"}}"),
  c("{{splitList \",\" \"a,b,,c\"}}"), c("{{splitList \"\" \"abc\"}}"), c("{{join \"-\" .l}}"), c("{{join \",\" (splitList \":\" \"x:y\")}}"), c("{{join \"-\" .s}}"),
  c("{{join \"-\" .n}}"), c("{{printf \"%T\" (splitList \",\" \"a\")}}"), c("{{index (splitList \",\" \"a,b\") 1}}"),
  // lists, dicts
  c("{{list 1 \"a\" .n}}"), c("{{list}}"), c("{{printf \"%T\" (list 1)}}"), c("{{len (list 1 2 3)}}"), c("{{dict \"a\" 1 \"b\" \"x\"}}"), c("{{dict \"a\"}}"),
  c("{{dict 1 2}}"), c("{{(dict \"k\" \"v\").k}}"), c("{{get .m \"a\"}}"), c("{{get .m \"nope\"}}"), c("{{get .n \"a\"}}"), c("{{hasKey .m \"z\"}} {{hasKey .m \"q\"}}"),
  c("{{$d := dict \"a\" 1}}{{$_ := set $d \"b\" 2}}{{$d}}"), c("{{len (keys .m)}}"), c("{{keys (dict \"only\" 1)}}"), c("{{len (values .m)}}"), c("{{values (dict \"k\" 5)}}"),
  c("{{merge (dict \"a\" 1 \"c\" (dict \"x\" 1)) (dict \"a\" 2 \"b\" 3 \"c\" (dict \"y\" 2))}}"), c("{{merge (dict \"a\" \"\") (dict \"a\" \"filled\")}}"),
  c("{{merge .m}}"), c("{{hasKey .s \"a\"}}"), c("{{keys .s}}"),
  // arithmetic and conversions
  c("{{add 1 2 3}}"), c("{{add}}"), c("{{add 1 1.9}}"), c("{{add .a \"2\"}}"), c("{{sub 5 7}}"), c("{{mul 2 3 4}}"), c("{{div 7 2}}"), c("{{div -7 2}}"),
  c("{{mod 7 3}}"), c("{{mod -7 3}}"), c("{{div 1 0}}"), c("{{mod 1 0}}"), c("{{max 1 5 3}}"), c("{{min 4 -2 9}}"), c("{{max .a}}"),
  c("{{printf \"%T\" (add 1 1)}}"), c("{{int \"42\"}}"), c("{{int \"4.0\"}}"), c("{{int \"x\"}}"), c("{{int 3.9}}"), c("{{int .b}}"), c("{{int .n}}"),
  c("{{int64 \"0x10\"}}"), c("{{printf \"%T\" (int 1)}}"), c("{{printf \"%T\" (int64 1)}}"), c("{{float64 \"1.25\"}}"), c("{{float64 3}}"), c("{{float64 \"x\"}}"),
  c("{{float64 1000000}}"), c("{{toString 1.5}}"), c("{{toString .l}}"), c("{{toString .n}}"), c("{{toString .m}}"), c("{{eq (add 1 1) 2}}"),
  // toJson / fromJson
  c("{{toJson .m}}"), c("{{toJson .l}}"), c("{{toJson \"<a&b>\"}}"), c("{{toJson .f}}"), c("{{toJson .mil}}"), f64("{{toJson .mil}}"),
  c("{{toJson 1e21}}"), c("{{toJson 0.0000001}}"), c("{{toJson .n}}"), c("{{toJson .missing}}"), c("{{(fromJson \"{\\\"a\\\":[1,2]}\").a}}"),
  c("{{fromJson \"not json\"}}"), c("{{printf \"%T\" (fromJson \"1\")}}"), c("{{fromJson \"[1, 1.5, \\\"x\\\", null, true]\"}}"),
  // toYaml
  c("{{toYaml .m}}"), c("{{toYaml .l}}"), c("{{toYaml .}}"), c("{{toYaml .n}}"), c("{{toYaml \"s\"}}"), c("{{toYaml .e}}"), c("{{toYaml .o}}"),
  c("{{toYaml .x}}", { x: { s: ["true", "1", "", "a: b", "#c", " lead", "y", "no", "1.5", "0x1F", "-", "- x", "ok-word", "x:y", "null", "~", "plain text"] } }),
  c("{{toYaml .x}}", { x: { nested: [{ a: 1, b: [1, 2] }, [3, 4], { c: {} }], multi: "l1\nl2\n", multi2: "l1\nl2", num: 1.5, big: 1e21, i: 7 } }),
  c("resources:\n  {{- toYaml .r | nindent 2 }}", { r: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: 0.25 } } }),
  f64("{{toYaml .x}}", { x: { a: 1000000, b: 1.5, c: 3 } }),
];
