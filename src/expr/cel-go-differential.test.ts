// The dialect's string and list functions against cel-go itself: every case of
// test/data/expr/cel-go-cases.ts was evaluated by go/cel-oracle (cel-go v0.23.2, the version
// Kubernetes 1.33's API server runs, with the libraries kro and the API server enable) and its
// answer recorded in test/data/expr/cel-go-golden.json. Ours must give the same value, or fail
// where cel-go fails (the messages may differ). After changing the cases, re-record with
// `npm run build && node scripts/refresh-cel-golden.mjs` (needs Go; the first oracle build takes
// minutes, which is why this test reads the recording instead of running the oracle).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { Optional } from "@marcbachmann/cel-js";
import { celGoCases, type CelGoCase } from "../../test/data/expr/cel-go-cases.js";
import { compileExpression } from "./compile.js";
import { createKroCelEnvironment } from "./environment.js";
import { isCelMap, mapEntries } from "./lib-support.js";
import { jsonToCel } from "./values.js";

type Answer = { readonly value: unknown } | { readonly error: string };
type Recorded = CelGoCase & { readonly cel_go: Answer };

const recording = JSON.parse(
  readFileSync(new URL("../../../test/data/expr/cel-go-golden.json", import.meta.url), "utf8"),
) as { readonly oracle: string; readonly cases: readonly Recorded[] };
const golden = recording.cases;

/** The hash scripts/refresh-cel-golden.mjs records: the oracle's source files. */
function oracleHash(): string {
  const hash = createHash("sha256");
  for (const file of ["main.go", "go.mod", "go.sum"])
    hash.update(readFileSync(new URL(`../../../go/cel-oracle/${file}`, import.meta.url)));
  return hash.digest("hex").slice(0, 16);
}

/** A CEL value tagged with its type, as the oracle prints it. */
function encode(v: unknown): unknown {
  if (typeof v === "string") return { s: v };
  if (typeof v === "bigint") return { i: v.toString() };
  if (typeof v === "number") return { d: v };
  if (typeof v === "boolean") return { b: v };
  if (v === null) return { n: null };
  if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString("base64") };
  if (v instanceof Optional) return { o: v.hasValue() ? encode(v.value()) : null };
  if (typeof v === "object" && v.constructor.name === "UnsignedInt")
    return { u: (v as { valueOf(): bigint }).valueOf().toString() };
  if (Array.isArray(v)) return { l: v.map(encode) };
  if (isCelMap(v)) {
    const entries = mapEntries(v).map(([k, x]) => [encode(k), encode(x)] as const);
    entries.sort(([a], [b]) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    return { m: entries };
  }
  return { t: typeof v };
}

const env = createKroCelEnvironment();

/** Our answer: variables enter as the controller's JSON does (jsonToCel), as dyn. */
function ours(c: CelGoCase): Answer {
  try {
    const vars = Object.fromEntries(Object.entries(c.vars ?? {}).map(([k, v]) => [k, jsonToCel(v)]));
    return { value: encode(compileExpression(env, c.expr).evaluate(vars)) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

describe("differential: the dialect's string and list functions against cel-go v0.23.2", () => {
  it("the recording matches the case list and the oracle's source (else re-record: see the top of this file)", () => {
    assert.equal(recording.oracle, oracleHash(), "go/cel-oracle changed since the recording");
    assert.deepEqual(
      golden.map(({ cel_go: _, ...c }) => c),
      JSON.parse(JSON.stringify(celGoCases)),
    );
  });

  it(`${golden.length} cases agree with cel-go`, () => {
    const mismatches: string[] = [];
    for (const c of golden) {
      const mine = ours(c);
      const agree = "error" in c.cel_go ? "error" in mine : "value" in mine && isDeepEqual(mine.value, c.cel_go.value);
      if (!agree)
        mismatches.push(
          `${c.expr} ${JSON.stringify(c.vars ?? {})}: ours ${JSON.stringify(mine)}, cel-go ${JSON.stringify(c.cel_go)}`,
        );
    }
    assert.equal(mismatches.length, 0, `${mismatches.length} of ${golden.length} differ:\n${mismatches.join("\n")}`);
  });
});

function isDeepEqual(a: unknown, b: unknown): boolean {
  try {
    assert.deepEqual(a, b);
    return true;
  } catch {
    return false;
  }
}
