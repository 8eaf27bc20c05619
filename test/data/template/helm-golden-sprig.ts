/** Helm golden cases for Sprig's strings, lists, dictionaries, math, conversions and type tests (as Helm exposes them). */
import { helmCase, type HelmCase } from "./helm-golden-support.js";

const V = {
  s: " Hello World ", name: "my-release", word: "helloWorld", i: 3, f: 1.5, neg: -2.7, big: 1000000, b: true, n: null, es: "",
  l: [1, "two", null, true, 2.5], sl: ["b", "a", "c", "a"], nums: [3, 1, 2], e: [], o: {},
  m: { z: 1, a: "x", k: { deep: [1, 2] } }, nested: { a: { b: { c: "found" } } }, ml: "line1\nline2\n",
};
const c = (t: string, values: Record<string, unknown> = V): HelmCase => helmCase(t, values);

const strings: HelmCase[] = [
  "{{ trunc 5 .Values.name }}", "{{ trunc -3 .Values.name }}", "{{ trunc 0 .Values.name }}", "{{ trunc 100 .Values.name }}", "{{ trunc -100 .Values.name }}",
  "{{ abbrev 5 \"hello world\" }}", "{{ abbrev 3 \"hello world\" }}", "{{ abbrev 20 \"hello\" }}", "{{ abbrevboth 5 10 \"1234 5678 9123\" }}", "{{ abbrevboth 0 4 \"abcdefg\" }}",
  "{{ substr 0 5 \"hello world\" }}", "{{ substr 3 -1 \"hello world\" }}", "{{ substr -1 4 \"hello\" }}", "{{ substr 2 100 \"hello\" }}", "{{ substr 4 2 \"hello\" }}",
  "{{ repeat 3 \"ab\" }}", "{{ repeat 0 \"ab\" }}", "{{ \"x\" | repeat 2 }}", "{{ trimAll \"$\" \"$$5.00$\" }}", "{{ trimall \"-\" \"--a-b--\" }}",
  "{{ nospace \" a b\\tc\\n \" }}", "{{ initials \"First Try here\" }}", "{{ initials \"  lead  trail \" }}", "{{ untitle \"Hello World FOO\" }}", "{{ swapcase \"This Is A.Test\" }}",
  "{{ swapcase \"hello WORLD x\" }}", "{{ snakecase \"FirstName\" }}", "{{ snakecase \"HTTPServer\" }}", "{{ snakecase \"some-kebab_case Value\" }}", "{{ snakecase \"version2Update10x\" }}",
  "{{ kebabcase \"FirstName\" }}", "{{ kebabcase \"APIVersion\" }}", "{{ kebabcase \"already-kebab\" }}", "{{ kebabcase \"a1B2c3\" }}", "{{ snakecase \"\" }}",
  "{{ camelcase \"http_server\" }}", "{{ camelcase \"first-name value\" }}", "{{ camelcase \"_leading\" }}", "{{ camelcase \"ALLCAPS_word\" }}", "{{ camelcase \"a\" }}",
  "{{ camelcase \"__\" }}", "{{ camelcase \"helloWorld\" }}", "{{ wrap 5 \"Hello World Again\" }}", "{{ wrap 3 \"abcdefgh ij\" }}", "{{ wrapWith 5 \"\\t\" \"Hello World\" }}",
  "{{ wrapWith 3 \"|\" \"abcdefgh\" }}", "{{ cat \"a\" 1 .Values.n \"b\" 2.5 }}", "{{ cat }}", "{{ cat .Values.l }}", "{{ plural \"one\" \"many\" 1 }} {{ plural \"one\" \"many\" 2 }}",
  "{{ plural \"a\" \"b\" .Values.i }}", "{{ title \"hello world\" }}", "{{ lower \"ABC\" }} {{ upper \"abc\" }}", "{{ trim .Values.s }}|{{ trimPrefix \" He\" .Values.s }}|{{ trimSuffix \"d \" .Values.s }}",
  "{{ replace \"l\" \"L\" .Values.s }}", "{{ contains \"World\" .Values.s }} {{ hasPrefix \"x\" .Values.s }} {{ hasSuffix \" \" .Values.s }}",
  "{{ quote .Values.s }} {{ squote .Values.s }} {{ quote .Values.i .Values.n .Values.f }}", "{{ quote .Values.missing }}|{{ squote .Values.missing }}",
  "{{ indent 4 .Values.ml }}", "{{ nindent 2 \"a\\nb\" }}", "{{ .Values.m | toYaml | indent 2 }}", "{{ split \"$\" \"foo$bar$baz\" }}", "{{ (split \"/\" \"a/b/c\")._1 }}",
  "{{ splitn \"$\" 2 \"foo$bar$baz\" }}", "{{ splitList \"-\" \"a-b-c\" }}", "{{ join \"+\" .Values.sl }}", "{{ join \",\" .Values.l }}", "{{ sortAlpha .Values.sl }}",
  "{{ sortAlpha .Values.nums }}", "{{ sortAlpha \"x\" }}", "{{ toStrings .Values.l }}", "{{ printf \"%T\" (toStrings .Values.nums) }}", "{{ toString 1.5 }} {{ toString .Values.i }} {{ toString .Values.b }}",
  "{{ hello }}", "{{ len (randAlphaNum 8) }} {{ len (randAlpha 4) }} {{ len (randNumeric 3) }} {{ len (randAscii 5) }}", "{{ regexMatch \"^[a-z]+$\" \"abc\" }}",
  "{{ regexFind \"[a-zA-Z][1-9]\" \"abcd1234\" }}", "{{ regexFind \"x+\" \"abc\" }}", "{{ regexFindAll \"[2,4,6,8]\" \"123456789\" -1 }}", "{{ regexFindAll \"[2,4,6,8]\" \"123456789\" 2 }}",
  "{{ regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"${1}W\" }}", "{{ regexReplaceAllLiteral \"a(x*)b\" \"-ab-axxb-\" \"${1}\" }}", "{{ regexSplit \"z+\" \"pizza\" -1 }}", "{{ regexSplit \"z+\" \"pizza\" 1 }}",
  "{{ regexSplit \"\" \"abc\" -1 }}", "{{ regexSplit \",\" \"a,b,,c\" 2 }}", "{{ regexQuoteMeta \"1.2.3+[x]\" }}", "{{ regexFind \"[\" \"x\" }}", "{{ mustRegexFind \"[\" \"x\" }}",
  "{{ mustRegexMatch \"(\" \"x\" }}", "{{ regexReplaceAll \"(\" \"x\" \"y\" }}", "{{ mustRegexReplaceAll \"a{2\" \"x\" \"y\" }}", "{{ regexSplit \"*\" \"x\" -1 }}", "{{ mustRegexReplaceAll \"a\" \"banana\" \"o\" }}", "{{ mustRegexSplit \"a\" \"banana\" -1 }}", "{{ mustRegexFindAll \"a.\" \"banana\" -1 }}", "{{ regexMatch \"[\" \"x\" }}",
  "{{ b64enc \"hello\" }} {{ b64dec \"aGVsbG8=\" }}", "{{ b32enc \"hello\" }} {{ b32dec \"NBSWY3DP\" }}", "{{ b32dec \"!!!\" }}", "{{ b32enc \"\" }}|{{ b32enc \"a\" }}|{{ b32enc \"abcdef\" }}",
  "{{ sha1sum \"abc\" }}", "{{ sha256sum \"abc\" }}", "{{ sha512sum \"abc\" }}", "{{ adler32sum \"Wikipedia\" }}", "{{ adler32sum \"\" }}",
  "{{ base \"/a/b/c.txt\" }} {{ dir \"/a/b/c.txt\" }} {{ ext \"/a/b/c.tar.gz\" }} {{ clean \"a//b/../c/.\" }} {{ isAbs \"/x\" }} {{ isAbs \"x\" }}",
  "{{ base \"\" }} {{ dir \"\" }} {{ clean \"\" }} {{ base \"/\" }} {{ dir \"a\" }} {{ clean \"../../x\" }} {{ clean \"/../x\" }}", "{{ osBase \"a/b\" }} {{ osDir \"a/b\" }} {{ osExt \"x.y\" }} {{ osClean \"/a/./b\" }} {{ osIsAbs \"/\" }}",
  "{{ len uuidv4 }}", "{{ shuffle \"\" }}|{{ len (shuffle \"abc\") }}", "{{ upper .Values.i }}", "{{ trunc \"x\" \"abc\" }}", "{{ quote }}|{{ squote }}",
].map((t) => c(t));

const lists: HelmCase[] = [
  "{{ list 1 \"a\" .Values.n }}", "{{ tuple 1 2 }}", "{{ first .Values.l }} {{ last .Values.l }}", "{{ first .Values.e }}|{{ last .Values.e }}", "{{ rest .Values.l }} {{ initial .Values.l }}",
  "{{ rest .Values.e }}|{{ initial .Values.e }}", "{{ first \"abc\" }}", "{{ mustFirst \"abc\" }}", "{{ first .Values.n }}", "{{ append .Values.sl \"d\" }} {{ prepend .Values.sl \"z\" }}",
  "{{ push .Values.nums 9 }}", "{{ mustAppend \"x\" 1 }}", "{{ mustPrepend .Values.m 1 }}", "{{ reverse .Values.sl }}", "{{ reverse .Values.e }}",
  "{{ uniq .Values.sl }}", "{{ uniq (list 1 1.0 \"1\" 1 (list 1) (list 1)) }}", "{{ without .Values.sl \"a\" \"c\" }}", "{{ without .Values.l .Values.n }}", "{{ has \"a\" .Values.sl }} {{ has \"q\" .Values.sl }}",
  "{{ has 1 .Values.nums }} {{ has 3.0 .Values.nums }}", "{{ has \"x\" .Values.n }}", "{{ mustHas \"x\" \"xyz\" }}", "{{ compact (list 1 0 \"\" .Values.n false \"x\" (list) (dict)) }}", "{{ compact .Values.sl }}",
  "{{ slice .Values.sl 1 3 }}", "{{ slice .Values.sl 2 }}", "{{ slice .Values.sl }}", "{{ slice .Values.sl 3 1 }}", "{{ slice .Values.sl 0 10 }}",
  "{{ mustSlice \"abc\" 1 }}", "{{ concat .Values.sl .Values.nums (list \"x\") }}", "{{ concat .Values.sl \"x\" }}", "{{ chunk 2 .Values.sl }}", "{{ chunk 3 (list 1 2 3 4 5 6 7) }}",
  "{{ printf \"%T\" (chunk 2 .Values.sl) }}", "{{ chunk 2 .Values.e }}", "{{ until 5 }}", "{{ until -3 }}", "{{ until 0 }}",
  "{{ untilStep 3 6 2 }}", "{{ untilStep 10 0 -3 }}", "{{ untilStep 0 10 0 }}", "{{ printf \"%T\" (until 2) }}", "{{ range until 3 }}[{{ . }}]{{ end }}",
  "{{ seq 5 }}", "{{ seq -3 }}", "{{ seq 0 }}", "{{ seq 2 5 }}", "{{ seq 5 2 }}", "{{ seq 0 2 10 }}", "{{ seq 10 -3 0 }}", "{{ seq 0 3 -1 }}", "{{ seq 1 2 3 4 }}", "{{ seq }}",
  "{{ len .Values.l }} {{ index .Values.sl 1 }}", "{{ first (list) }}", "{{ append .Values.n 1 }}", "{{ last (until 4) }}", "{{ has .Values.n .Values.l }}",
  "{{ sortAlpha (list \"b\" 10 \"a\" 2) }}", "{{ uniq .Values.nums | sortAlpha }}", "{{ reverse (until 3) }}", "{{ concat (until 2) (list \"x\") }}", "{{ without (until 5) 1 3 }}",
].map((t) => c(t));

const dicts: HelmCase[] = [
  "{{ dict \"a\" 1 \"b\" \"x\" }}", "{{ dict \"a\" }}", "{{ dict 1 2 .Values.n 3 }}", "{{ get .Values.m \"a\" }}|{{ get .Values.m \"q\" }}", "{{ hasKey .Values.m \"z\" }} {{ hasKey .Values.m \"q\" }}",
  "{{ $d := dict \"a\" 1 }}{{ $_ := set $d \"b\" 2 }}{{ $_ := unset $d \"a\" }}{{ $d }}", "{{ pluck \"a\" (dict \"a\" 1) (dict \"b\" 2) (dict \"a\" 3) }}", "{{ pick .Values.m \"a\" \"z\" \"nope\" }}", "{{ omit .Values.m \"a\" \"k\" }}", "{{ keys .Values.m | sortAlpha }}",
  "{{ keys (dict \"a\" 1) (dict \"b\" 2) | sortAlpha }}", "{{ values (dict \"x\" 1) }}", "{{ dig \"a\" \"b\" \"c\" \"dflt\" .Values.nested }}", "{{ dig \"a\" \"x\" \"c\" \"dflt\" .Values.nested }}", "{{ dig \"a\" \"b\" \"c\" \"d\" \"dflt\" .Values.nested }}",
  "{{ dig \"a\" \"dflt\" .Values.o }}", "{{ .Values.nested | dig \"a\" \"b\" \"none\" }}", "{{ merge (dict \"a\" 1 \"c\" (dict \"x\" 1)) (dict \"a\" 2 \"b\" 3 \"c\" (dict \"y\" 2)) }}", "{{ mergeOverwrite (dict \"a\" 1 \"c\" (dict \"x\" 1)) (dict \"a\" 2 \"b\" 3 \"c\" (dict \"x\" 5 \"y\" 2)) }}", "{{ mergeOverwrite (dict \"a\" 1 \"b\" \"keep\") (dict \"a\" 0 \"b\" \"\") }}",
  "{{ mergeOverwrite (dict) (dict \"a\" \"\" \"b\" 0 \"c\" .Values.n) }}", "{{ mustMerge (dict \"a\" \"\") (dict \"a\" \"x\") }}", "{{ mustMergeOverwrite (dict \"l\" (list 1 2)) (dict \"l\" (list 3)) }}", "{{ merge (dict \"l\" (list 1 2)) (dict \"l\" (list 3)) }}", "{{ $c := deepCopy .Values.m }}{{ $_ := set $c \"z\" 9 }}{{ .Values.m.z }} {{ $c.z }}",
  "{{ deepCopy .Values.l }}", "{{ mustDeepCopy .Values.n }}", "{{ deepCopy \"s\" }}", "{{ toJson (dict \"b\" 1 \"a\" (list 1 \"<x>\")) }}", "{{ toPrettyJson .Values.m }}",
  "{{ toPrettyJson .Values.e }}|{{ toPrettyJson .Values.o }}|{{ toPrettyJson (dict \"a\" (list)) }}", "{{ toRawJson (dict \"h\" \"<b>&</b>\") }}", "{{ mustToJson .Values.m }}", "{{ mustToRawJson \"<\" }}", "{{ mustToPrettyJson (list 1 2) }}",
  "{{ get .Values.n \"a\" }}", "{{ pick .Values.n \"a\" }}", "{{ set .Values.n \"a\" 1 }}", "{{ keys .Values.sl }}", "{{ dict \"k\" .Values.missing }}",
].map((t) => c(t));

const mathAndTypes: HelmCase[] = [
  "{{ add 1 2 3 }} {{ add1 5 }} {{ sub 5 7 }} {{ mul 2 3 4 }} {{ div 7 2 }} {{ mod 7 3 }}", "{{ add .Values.i .Values.f }}", "{{ add1 .Values.f }}", "{{ max 1 5 3 }} {{ min 4 -2 9 }} {{ biggest 1 7 }}",
  "{{ maxf 1 5.5 3 }} {{ minf 4 -2.5 9 }}", "{{ addf 1.1 2.2 }} {{ add1f 1.5 }} {{ subf 10 0.1 0.2 }} {{ mulf 1.1 3 }} {{ divf 10 4 }} {{ divf 1 3 }}", "{{ addf 0.1 0.2 }}", "{{ divf 2 3 }} {{ divf -2 3 }}", "{{ divf 1 0 }}",
  "{{ addf }}", "{{ mulf 0.1 0.1 0.1 }}", "{{ subf 1 }}", "{{ floor 1.7 }} {{ ceil 1.2 }} {{ floor -1.5 }} {{ ceil \"2.1\" }}", "{{ round 3.14159 2 }} {{ round 2.5 0 }} {{ round 3.745 2 }} {{ round 123.5555 3 0.4 }}",
  "{{ round -1.5 0 }}", "{{ div 1 0 }}", "{{ int \"42\" }} {{ int64 \"0x1F\" }} {{ float64 \"1.25\" }} {{ int 3.9 }}", "{{ atoi \"12\" }} {{ atoi \"x\" }} {{ atoi \"1.5\" }} {{ atoi \"+7\" }}", "{{ toDecimal \"0777\" }} {{ toDecimal \"8\" }} {{ toDecimal 12 }}",
  "{{ printf \"%T %T %T %T\" (add 1 1) (add1f 1) (atoi \"1\") (toDecimal \"1\") }}", "{{ .Values.big }} {{ add .Values.big 1 }} {{ mul .Values.big 1000 }}", "{{ typeOf .Values.i }} {{ typeOf .Values.s }} {{ typeOf .Values.l }} {{ typeOf .Values.m }} {{ typeOf .Values.n }} {{ typeOf .Values.b }}",
  "{{ typeOf (list) }} {{ typeOf (dict) }} {{ typeOf (splitList \",\" \"a\") }} {{ typeOf 1 }} {{ typeOf (int64 1) }} {{ typeOf (until 1) }}", "{{ kindOf .Values.i }} {{ kindOf .Values.s }} {{ kindOf .Values.l }} {{ kindOf .Values.m }} {{ kindOf .Values.n }} {{ kindOf .Values.b }} {{ kindOf 1 }}",
  "{{ kindIs \"map\" .Values.m }} {{ kindIs \"slice\" .Values.m }} {{ kindIs \"float64\" .Values.i }} {{ kindIs \"invalid\" .Values.missing }}", "{{ typeIs \"float64\" .Values.i }} {{ typeIs \"string\" .Values.i }} {{ typeIsLike \"float64\" .Values.i }} {{ typeIsLike \"*float64\" .Values.i }}",
  "{{ deepEqual .Values.m .Values.m }} {{ deepEqual (list 1 2) (list 1 2) }} {{ deepEqual 1 1.0 }} {{ deepEqual .Values.i 3.0 }} {{ deepEqual (dict) (dict) }} {{ deepEqual .Values.n .Values.missing }}",
  "{{ empty .Values.es }} {{ empty .Values.s }} {{ empty .Values.e }} {{ empty .Values.o }} {{ empty .Values.n }} {{ empty 0 }} {{ empty .Values.missing }}", "{{ all 1 \"a\" .Values.b }} {{ all 1 \"\" }} {{ any 0 \"\" .Values.n }} {{ any 0 \"x\" }} {{ all }} {{ any }}",
  "{{ coalesce .Values.n .Values.es .Values.s }}", "{{ coalesce .Values.missing 0 \"\" }}", "{{ ternary \"y\" \"n\" .Values.b }} {{ .Values.b | ternary 1 2 }}", "{{ default \"d\" .Values.missing }} {{ default \"d\" .Values.e }} {{ default 5 0 }}",
  "{{ .Values.f | int }} {{ .Values.neg | int }} {{ .Values.neg | int64 }} {{ .Values.i | float64 }}", "{{ max .Values.f 1 }} {{ min .Values.neg 0 }}", "{{ mod -7 3 }} {{ div -7 2 }}",
  "{{ eq .Values.i 3.0 }}", "{{ eq .Values.i 3 }}", "{{ lt .Values.f 2.0 }}", "{{ gt (len .Values.sl) 2 }}", "{{ if and .Values.b (not .Values.n) }}yes{{ end }}",
].map((t) => c(t));

export const sprigCases: readonly HelmCase[] = [...strings, ...lists, ...dicts, ...mathAndTypes];
