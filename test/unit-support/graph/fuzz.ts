/**
 * A mutation fuzzer (fast-check) for the YAML reader and the compiler, seeded with the RGDs the
 * unit tests use (test/fixtures/rgd and examples/). Properties: loadYaml never throws and every
 * problem it reports has a position; compileRgd never throws on any document the reader yields,
 * nor on fixture values with random subtrees swapped in. Shared by src/graph/fuzz.test.ts (a few
 * seconds) and scripts/fuzz.mjs (`npm run fuzz -- --minutes N`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { loadYaml } from "../../../src/api/index.js";
import { createKroCelEnvironment } from "../../../src/expr/index.js";
import { builtinSchemaResolver, type BuiltinSchemaBundle } from "../../../src/graph/schema-resolver.js";
import { compileRgd } from "../../../src/graph/compile.js";

const root = new URL("../../../../", import.meta.url);

export function fixtureTexts(): string[] {
  const fixtures = readdirSync(new URL("test/fixtures/rgd/", root))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => `test/fixtures/rgd/${f}`);
  const examples = ["examples/nginx/nginxapp-rgd.yaml", "examples/webapp/webapp-rgd.yaml"];
  return [...fixtures, ...examples].map((f) => readFileSync(new URL(f, root), "utf8"));
}

/** Fragments that stress YAML and CEL parsing: structure, anchors, expressions, odd bytes. */
const FRAGMENTS = [
  "[",
  "]",
  "{",
  "}",
  ": ",
  "- ",
  "\n",
  "\n  ",
  "&a ",
  "*a",
  "!!str ",
  "? ",
  "|\n",
  ">-\n",
  '"',
  "'",
  "#",
  "---\n",
  "...\n",
  "\t",
  "${",
  "}",
  "${schema.spec.name}",
  "${a.b.c}",
  '${x.matches("(a")}',
  '${x.matches("^(a+)+$")}',
  "${cel.bind(x, 1, x + x)}",
  "{{",
  "}}",
  "{{ .x }}",
  "\u0000",
  "\uFFFD",
  "💥",
  "\\",
  "%",
  "@",
  "`",
];

const mutation = (length: number) =>
  fc.oneof(
    fc.record({
      kind: fc.constant("insert" as const),
      at: fc.nat(length),
      text: fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 })),
    }),
    fc.record({ kind: fc.constant("delete" as const), at: fc.nat(length), size: fc.integer({ min: 1, max: 40 }) }),
    fc.record({
      kind: fc.constant("duplicate" as const),
      at: fc.nat(length),
      size: fc.integer({ min: 1, max: 200 }),
      to: fc.nat(length),
    }),
  );

type Mutation =
  | { kind: "insert"; at: number; text: string }
  | { kind: "delete"; at: number; size: number }
  | { kind: "duplicate"; at: number; size: number; to: number };

function mutate(text: string, mutations: readonly Mutation[]): string {
  let out = text;
  for (const m of mutations) {
    const at = Math.min(m.at, out.length);
    if (m.kind === "insert") out = out.slice(0, at) + m.text + out.slice(at);
    else if (m.kind === "delete") out = out.slice(0, at) + out.slice(at + m.size);
    else
      out =
        out.slice(0, Math.min(m.to, out.length)) + out.slice(at, at + m.size) + out.slice(Math.min(m.to, out.length));
  }
  return out;
}

/** Replaces the value at a random path of `value` with `replacement`. */
function swapSubtree(value: unknown, choices: readonly number[], replacement: unknown): unknown {
  if (choices.length === 0 || typeof value !== "object" || value === null) return replacement;
  const [choice = 0, ...rest] = choices;
  if (Array.isArray(value)) {
    if (value.length === 0) return replacement;
    const i = choice % value.length;
    return value.map((v: unknown, j) => (j === i ? swapSubtree(v, rest, replacement) : v));
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[choice % keys.length] ?? "";
  return { ...value, [key]: swapSubtree((value as Record<string, unknown>)[key], rest, replacement) };
}

export interface FuzzResult {
  readonly iterations: number;
  readonly crashes: readonly string[];
}

export interface FuzzOptions {
  readonly numRuns: number;
  readonly seed?: number;
}

export function fuzzCompiler(options: FuzzOptions): FuzzResult {
  const texts = fixtureTexts();
  const values = texts.map((t, i) => loadYaml(`fixture-${i}.yaml`, t).documents[0]?.value);
  const env = createKroCelEnvironment({ enableRuntime: true });
  const resolver = builtinSchemaResolver(
    JSON.parse(
      gunzipSync(readFileSync(new URL("schemas/kubernetes/1.33.json.gz", root))).toString("utf8"),
    ) as BuiltinSchemaBundle,
  );
  const crashes: string[] = [];
  let iterations = 0;
  const record = (what: string, input: string, e: unknown): void => {
    crashes.push(
      `${what}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}\n--- input ---\n${input.slice(0, 2000)}`,
    );
  };

  const textProperty = fc.property(
    fc.nat(texts.length - 1),
    fc.array(mutation(4000), { minLength: 1, maxLength: 6 }),
    (index, mutations) => {
      iterations++;
      const text = mutate(texts[index] ?? "", mutations);
      let loaded;
      try {
        loaded = loadYaml("fuzz.yaml", text);
      } catch (e) {
        record("loadYaml threw", text, e);
        return;
      }
      for (const p of loaded.problems)
        if (p.position === undefined) record("unlocated YAML problem", text, new Error(p.issue.message));
      for (const document of loaded.documents) {
        try {
          compileRgd(document.value, { env, resolver });
        } catch (e) {
          record("compileRgd threw", text, e);
        }
      }
    },
  );
  const replacement = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(...FRAGMENTS),
    fc.string({ maxLength: 20 }).map((s) => `\${${s}}`),
  );
  const valueProperty = fc.property(
    fc.nat(values.length - 1),
    fc.array(fc.nat(), { maxLength: 8 }),
    replacement,
    (index, path, value) => {
      iterations++;
      const mutated = swapSubtree(values[index], path, value);
      try {
        compileRgd(mutated, { env, resolver });
      } catch (e) {
        record("compileRgd threw on a value", JSON.stringify(mutated), e);
      }
    },
  );
  const params = {
    numRuns: Math.ceil(options.numRuns / 2),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
  };
  fc.assert(textProperty, params);
  fc.assert(valueProperty, params);
  return { iterations, crashes };
}
