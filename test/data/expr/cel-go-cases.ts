/**
 * Cases for the CEL differential test (src/expr/cel-go-differential.test.ts): every string
 * function of the dialect, and the list functions that order or search strings, on strings chosen
 * to separate UTF-16 code units from code points (astral planes, combining marks, a BOM, Turkish
 * dotted and dotless I, ZWJ sequences, the U+E000 range that sorts above surrogates in UTF-16 but
 * below astral characters in code points), empty strings, out-of-range and negative indices.
 * cel-go's answers are recorded in cel-go-golden.json by scripts/refresh-cel-golden.mjs.
 * Left out on purpose: ext.Sets (the API server has it, kro's dialect does not), and `%s` of a list
 * holding strings (cel-go v0.23, the API server's, quotes them; kro's newer cel-go and this dialect
 * do not).
 */

export interface CelGoCase {
  readonly expr: string;
  readonly vars?: Readonly<Record<string, unknown>>;
}

/** Strings whose UTF-16 length differs from their code-point length, or whose order differs. */
export const ADVERSARIAL = [
  "",
  "a",
  "abc",
  "😀ateam-a",
  "𝔘nicode𝔘",
  "e\u0301e\u0301",
  "\uFEFFbom\uFEFF",
  "İıIi",
  "👨‍👩‍👧x",
  "\uE000\u{1F600}\uFFFF",
  "a😀b😀c",
  " \t😀 \u00a0",
  "ß\u{10FFFF}",
] as const;

/** Needles and separators: empty, ASCII, astral, combining, BMP private use. */
const NEEDLES = ["", "a", "😀", "team", "\u0301", "\uE000", "𝔘", "b😀"] as const;
const INDICES = [-1, 0, 1, 2, 3, 8, 100] as const;

const one = (expr: string, s: string, t?: string): CelGoCase => ({ expr, vars: t === undefined ? { s } : { s, t } });

function stringFunctionCases(): CelGoCase[] {
  const out: CelGoCase[] = [];
  for (const s of ADVERSARIAL) {
    out.push(one("s.size()", s), one("size(s)", s));
    out.push(one("s.reverse()", s), one("s.lowerAscii()", s), one("s.upperAscii()", s), one("s.trim()", s));
    out.push(one("strings.quote(s)", s), one("bytes(s).size()", s), one("string(bytes(s)) == s", s));
    out.push(one("'%s|%s'.format([s, s.size()])", s), one("'%x'.format([s])", s), one("'%X'.format([s])", s));
    out.push(one("s.split('')", s), one("[s, s].join()", s), one("[s, s].join('😀')", s));
    out.push(one("s.matches('^.$')", s), one("s.matches('^.{3}$')", s), one("s.find('.$')", s));
    out.push(one("s.findAll('.')", s), one("s.findAll('.', 2)", s), one("s.matches('[😀-😂]')", s));
    out.push(one("s.matches('^\\\\p{L}')", s), one("s.findAll('\\\\PL')", s), one("s.find('[^a-z]+')", s));
    out.push(one("base64.encode(bytes(s))", s), one("string(base64.decode(base64.encode(bytes(s))))", s));
    out.push(one("s in [s]", s), one("s in {s: 1}", s), one("string(s) == s", s), one("dyn(s) == s", s));
    out.push(one("isURL('https://h/' + s)", s), one("url('https://h/p?q=' + s).getQuery()", s));
    out.push(one("s + s", s), one("s.charAt(s.size())", s), one("s.charAt(s.size() + 1)", s));
    out.push(one("s.substring(s.size())", s), one("s.substring(s.size() + 1)", s));
    out.push(one("s.substring(0, s.size())", s), one("s.lastIndexOf('')", s), one("s.indexOf('')", s));
    for (const i of INDICES) {
      out.push(one(`s.charAt(${i})`, s), one(`s.substring(${i})`, s), one(`s.substring(${i}, ${i + 2})`, s));
      out.push(one(`s.substring(1, ${i})`, s));
    }
    for (const t of NEEDLES) {
      out.push(one("s.indexOf(t)", s, t), one("s.lastIndexOf(t)", s, t));
      out.push(one("s.startsWith(t)", s, t), one("s.endsWith(t)", s, t), one("s.contains(t)", s, t));
      out.push(one("s.split(t)", s, t), one("s.replace(t, 'X')", s, t));
      for (const n of [-1, 0, 1, 2, 3]) {
        out.push(one(`s.split(t, ${n})`, s, t), one(`s.replace(t, '_', ${n})`, s, t));
      }
      for (const i of INDICES) out.push(one(`s.indexOf(t, ${i})`, s, t), one(`s.lastIndexOf(t, ${i})`, s, t));
    }
  }
  return out;
}

/** Pairs ordered differently by UTF-16 units and by code points, or by length and prefix. */
const ORDERED = ["", "a", "ab", "\uE000", "\uFFFF", "😀", "𝔘", "\u{10FFFF}", "\uFEFF", "e\u0301", "é"] as const;

function comparisonCases(): CelGoCase[] {
  const out: CelGoCase[] = [];
  for (const s of ORDERED) {
    for (const t of ORDERED) {
      out.push(one("[s < t, s <= t, s > t, s >= t, s == t, s != t]", s, t));
    }
  }
  out.push({ expr: "'\uE000' < '😀'" }, { expr: "'😀' > '\uFFFF'" }, { expr: "dyn('\uE000') < dyn('😀')" });
  out.push({ expr: "['😀', '\uE000', 'a', '', '𝔘', '\uFFFF'].sort()" });
  out.push({ expr: "['😀', '\uE000', 'a', '𝔘'].min()" }, { expr: "['😀', '\uE000', 'a', '𝔘'].max()" });
  out.push({ expr: "['\uE000', '😀'].isSorted()" }, { expr: "['😀', '\uE000'].isSorted()" });
  out.push({ expr: "l.sort()", vars: { l: [...ORDERED] } }, { expr: "l.sortBy(x, x.reverse())", vars: { l: [...ORDERED] } });
  out.push({ expr: "l.min()", vars: { l: ["😀", "\uFFFF"] } }, { expr: "l.max()", vars: { l: ["😀", "\uFFFF"] } });
  out.push({ expr: "l.indexOf('😀')", vars: { l: ["a", "😀", "😀"] } });
  out.push({ expr: "l.lastIndexOf('😀')", vars: { l: ["a", "😀", "😀"] } });
  out.push({ expr: "l.distinct()", vars: { l: ["😀", "e\u0301", "😀", "é"] } });
  out.push({ expr: "l.exists(x, x < '😀')", vars: { l: ["\uFFFF"] } });
  out.push({ expr: "lists.range(3).map(i, s.charAt(i))", vars: { s: "😀ab" } });
  out.push({ expr: "s.split('').map(c, c.size())", vars: { s: "😀ab" } });
  return out;
}

/** Literals in the expression text itself, and the attack that started this file. */
function literalCases(): CelGoCase[] {
  return [
    { expr: "schema.spec.ns.substring(2)", vars: { schema: { spec: { ns: "😀ateam-a" } } } },
    { expr: "schema.spec.ns.substring(2) == 'team-a'", vars: { schema: { spec: { ns: "😀ateam-a" } } } },
    { expr: "'😀ateam-a'.substring(2)" },
    { expr: "'\\U0001F600'.size()" },
    { expr: "'\\U0001F600' == '😀'" },
    { expr: "'\\ud83d\\ude00'.size()" },
    { expr: "'\\ud800'" },
    { expr: "'\\xF0\\x9F\\x98\\x80'.size()" },
    { expr: "b'\\xF0\\x9F\\x98\\x80'.size()" },
    { expr: "string(b'\\xF0\\x9F\\x98\\x80').size()" },
    { expr: "'%c'.format(['a'])" },
    { expr: "'%s'.format(['😀'])" },
    { expr: "'%5s'.format(['😀'])" },
    { expr: "'%d'.format(['😀'])" },
  ];
}

/**
 * Lone surrogates cannot reach an evaluation from the cluster: Go's JSON decoding turned them into
 * U+FFFD before the API server stored the object. The oracle decodes these variables the same
 * way, and so must the controller's conversion of JSON into CEL values.
 */
function loneSurrogateCases(): CelGoCase[] {
  const out: CelGoCase[] = [];
  for (const s of ["\uD800", "a\uDC00b", "😀\uD83D", "\uDE00😀"]) {
    out.push(one("s", s), one("s.size()", s), one("s == '\uFFFD' || s.contains('\uFFFD')", s), one("s.reverse()", s));
    out.push(one("s > '\uFFFC'", s), one("s < '😀'", s), one("s.indexOf('\uFFFD')", s), one("s.substring(1)", s));
    out.push(one("{s: 1}", s), one("m[s.substring(0, 1)]", s));
  }
  out.push({ expr: "m['\uFFFD']", vars: { m: { "\uD800": 1 } } }, { expr: "m.map(k, k.size())", vars: { m: { "a\uDC00": 1 } } });
  return out.map((c) => (c.expr.startsWith("m[s") ? { ...c, vars: { ...c.vars, m: { "\uFFFD": 1, a: 2 } } } : c));
}

export const celGoCases: readonly CelGoCase[] = [
  ...stringFunctionCases(),
  ...comparisonCases(),
  ...literalCases(),
  ...loneSurrogateCases(),
];
