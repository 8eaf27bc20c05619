/**
 * A generative fuzzer (fast-check) for the template engine and Sprig with instance-controlled
 * values: templates are random pipelines of every function the dialect offers, applied
 * to `.Values` fields whose values a hostile tenant chooses (10^8 and 2^62 counts, long strings,
 * deep and wide structures, YAML/JSON text), inside range, len, tpl and recursive include. The
 * property: every render ends within its budgets — a string or a TemplateError — never another
 * exception, and never past its deadline by more than a slack. Memory is the caller's to watch:
 * scripts/fuzz.mjs runs this in a worker thread with a heap limit and counts an out-of-memory end.
 */
import fc from "fast-check";
import { isTemplateError, parseTemplate, renderTemplate } from "../../../src/template/index.js";

/** Values a tenant may put in an instance's spec, biased towards sizes that hurt. */
const hostileNumber = fc.constantFrom(
  0,
  1,
  -1,
  2,
  3,
  7,
  64,
  1000,
  100_000,
  100_000_000,
  2 ** 31,
  2 ** 53,
  -(2 ** 53),
  4.5,
  1e300,
  Number.MAX_SAFE_INTEGER,
);
const hostileString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    "",
    "a",
    "(a+)+$",
    "{{ .Values.s }}",
    '{{ include "r" . }}',
    "- a\n- b\n",
    '{"a": [1, 2, {"b": null}]}',
    "a: &x [1]\nb: *x\n",
    'x = 1\n[t]\ny = "z"\n',
    "💥",
    "\u0000",
    "%s%d%v",
    "1.2.3",
    "2026-01-01T00:00:00Z",
  ),
  fc.integer({ min: 1, max: 200_000 }).map((n) => "x".repeat(n)),
);
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileNumber,
    hostileString,
    fc.boolean(),
    fc.constant(null),
    tie("list"),
    tie("dict"),
  ),
  list: fc.array(tie("value"), { maxLength: 6 }),
  dict: fc.dictionary(fc.constantFrom("a", "b", "n", "s", "k"), tie("value"), { maxKeys: 4 }),
})).value;
const values = fc.record({
  n: hostileNumber,
  m: hostileNumber,
  s: hostileString,
  t: hostileString,
  l: fc.array(hostileValue, { maxLength: 5 }),
  d: fc.dictionary(fc.string({ maxLength: 4 }), hostileValue, { maxKeys: 4 }),
  v: hostileValue,
});

const FIELDS = [
  ".Values.n",
  ".Values.m",
  ".Values.s",
  ".Values.t",
  ".Values.l",
  ".Values.d",
  ".Values.v",
  "(int .Values.n)",
  "(int64 .Values.m)",
  "(toString .Values.v)",
  "$",
];
const LITERALS = [
  "1",
  "3",
  "100000000",
  "-1",
  '"a"',
  '"rsa"',
  '"ecdsa"',
  '"%s"',
  '""',
  "(list 1 2)",
  '(dict "a" 1)',
  "true",
  "nil",
  "0.5",
];

/** One expression: a function of the table applied to fields, literals and nested expressions. */
function expression(functions: readonly string[]): fc.Arbitrary<string> {
  return fc.letrec((tie) => ({
    expr: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom(...FIELDS, ...LITERALS),
      fc
        .tuple(fc.constantFrom(...functions), fc.array(tie("expr") as fc.Arbitrary<string>, { maxLength: 3 }))
        .map(([f, args]) => `(${[f, ...args].join(" ")})`),
      fc.tuple(tie("expr") as fc.Arbitrary<string>, fc.constantFrom(...functions)).map(([e, f]) => `(${e} | ${f})`),
    ),
  })).expr;
}

/** A whole template around expressions: output, len, range, tpl, a recursive include. */
function template(functions: readonly string[]): fc.Arbitrary<string> {
  const e = expression(functions);
  return fc.oneof(
    e.map((x) => `{{ ${x} }}`),
    e.map((x) => `{{ len ${x} }}`),
    e.map((x) => `{{ range $i, $e := ${x} }}{{ $i }}={{ $e }};{{ end }}`),
    fc.tuple(e, e).map(([a, b]) => `{{ range ${a} }}{{ ${b} }}{{ end }}`),
    e.map((x) => `{{ tpl (toString ${x}) . }}`),
    e.map((x) => `{{ define "r" }}{{ ${x} }}{{ include "r" . }}{{ end }}{{ include "r" . }}`),
    fc
      .tuple(e, e)
      .map(([a, b]) => `{{ $x := ${a} }}{{ $y := ${b} }}{{ $x }}{{ $y }}{{ if $x }}{{ toYaml $x }}{{ end }}`),
  );
}

export interface TemplateFuzzOptions {
  readonly numRuns: number;
  readonly seed?: number;
  /** Deadline of one render (the controller's evaluation default: 2 s). */
  readonly deadlineMs?: number;
  /** Called before each render: scripts/fuzz.mjs keeps the last input to name an out-of-memory end. */
  readonly onInput?: (text: string, values: unknown) => void;
}

export interface TemplateFuzzResult {
  readonly iterations: number;
  readonly crashes: readonly string[];
  /** Renders that ended with a TemplateError (a limit named, a Go error): expected, counted. */
  readonly templateErrors: number;
  readonly slowestMs: number;
}

export function fuzzTemplates(options: TemplateFuzzOptions): TemplateFuzzResult {
  // Every function of the dialect: Go's built-ins and Sprig, crypto and key generation included.
  const functions = Object.keys(parseTemplate("probe", "").funcs);
  const deadlineMs = options.deadlineMs ?? 2_000;
  const crashes: string[] = [];
  let iterations = 0;
  let templateErrors = 0;
  let slowestMs = 0;
  const property = fc.property(template(functions), values, (text, data) => {
    iterations++;
    options.onInput?.(text, data);
    const started = performance.now();
    const deadline = { now: () => performance.now(), at: started + deadlineMs, budgetMs: deadlineMs };
    try {
      renderTemplate(parseTemplate("fuzz", text), { Values: data }, { deadline });
    } catch (e) {
      if (isTemplateError(e)) templateErrors++;
      else
        crashes.push(
          `${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}\n--- template ---\n${text.slice(0, 1000)}\n--- values ---\n${JSON.stringify(data).slice(0, 1000)}`,
        );
    }
    const took = performance.now() - started;
    slowestMs = Math.max(slowestMs, took);
    // Checked every 256 steps and at every charge: past the deadline by seconds is a stall.
    if (took > deadlineMs + 3_000)
      crashes.push(
        `stall: ${Math.round(took)} ms (deadline ${deadlineMs} ms)\n--- template ---\n${text.slice(0, 1000)}\n--- values ---\n${JSON.stringify(data).slice(0, 1000)}`,
      );
  });
  fc.assert(property, { numRuns: options.numRuns, ...(options.seed === undefined ? {} : { seed: options.seed }) });
  return { iterations, crashes, templateErrors, slowestMs: Math.round(slowestMs) };
}
