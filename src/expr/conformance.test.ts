// The official CEL conformance suite (@bufbuild/cel-spec) as a ratchet: count the cases our kro
// environment passes and fail if the count drops below conformance-baseline.json. Raise the
// baseline (by hand, in the same commit) when the count goes up.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";
import { compileExpression } from "./compile.js";
import { createKroCelEnvironment } from "./environment.js";
import { isCelMap, mapEntries } from "./lib-support.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Scalars of proto JSON (int64 arrive as strings); anything else is a malformed case. */
function text(v: Json | undefined): string {
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return String(v);
  throw new Unsupported("scalar");
}
interface Suite { name: string; suites?: Suite[]; tests?: { original: Record<string, Json> }[] }

const env = createKroCelEnvironment();

class Unsupported extends Error {}

/** cel.expr.Value (proto JSON) → a canonical string; results are canonicalised the same way. */
function expectedCanon(v: Json): string {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Unsupported("value");
  if ("int64Value" in v) return `i:${text(v.int64Value)}`;
  if ("uint64Value" in v) return `u:${text(v.uint64Value)}`;
  if ("doubleValue" in v) return `d:${String(Number(v.doubleValue))}`;
  if ("stringValue" in v) return `s:${JSON.stringify(v.stringValue)}`;
  if ("boolValue" in v) return `b:${text(v.boolValue)}`;
  if ("nullValue" in v) return "null";
  if ("bytesValue" in v) return `x:${Buffer.from(text(v.bytesValue), "base64").toString("hex")}`;
  if ("listValue" in v) {
    const values = (v.listValue as { values?: Json[] } | null)?.values ?? [];
    return `[${values.map(expectedCanon).join(",")}]`;
  }
  if ("mapValue" in v) {
    const entries = (v.mapValue as { entries?: { key: Json; value: Json }[] } | null)?.entries ?? [];
    return `{${entries.map((e) => `${expectedCanon(e.key)}=${expectedCanon(e.value)}`).sort().join(",")}}`;
  }
  throw new Unsupported(Object.keys(v).join(","));
}

function actualCanon(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "bigint") return `i:${v}`;
  if (typeof v === "number") return `d:${String(v)}`;
  if (typeof v === "string") return `s:${JSON.stringify(v)}`;
  if (typeof v === "boolean") return `b:${String(v)}`;
  if (v instanceof Uint8Array) return `x:${Buffer.from(v).toString("hex")}`;
  if (Array.isArray(v)) return `[${v.map(actualCanon).join(",")}]`;
  if (typeof v === "object" && v.constructor.name === "UnsignedInt") return `u:${String((v as { valueOf(): bigint }).valueOf())}`;
  if (isCelMap(v)) return `{${mapEntries(v).map(([k, x]) => `${actualCanon(k)}=${actualCanon(x)}`).sort().join(",")}}`;
  return `?:${typeof v}`;
}

function bindingsOf(raw: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return out;
  for (const [name, b] of Object.entries(raw)) {
    const value = (b as { value?: Json } | null)?.value;
    if (value === undefined) throw new Unsupported("binding");
    out[name] = fromExpected(value);
  }
  return out;
}

function fromExpected(v: Json): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Unsupported("binding value");
  if ("int64Value" in v) return BigInt(text(v.int64Value));
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("nullValue" in v) return null;
  if ("bytesValue" in v) return new Uint8Array(Buffer.from(text(v.bytesValue), "base64"));
  if ("listValue" in v) return ((v.listValue as { values?: Json[] } | null)?.values ?? []).map(fromExpected);
  throw new Unsupported("binding value");
}

function passes(t: Record<string, Json>): boolean {
  const expr = t.expr;
  if (typeof expr !== "string" || t.checkOnly === true || t.container !== undefined) return false;
  try {
    const vars = bindingsOf(t.bindings ?? null);
    const compiled = compileExpression(env, expr);
    if (t.evalError !== undefined) {
      try { compiled.evaluate(vars); return false; } catch { return true; }
    }
    const expected = t.value ?? (t.typedResult as { result?: Json } | undefined)?.result;
    const want = expected === undefined ? "b:true" : expectedCanon(expected);
    return actualCanon(compiled.evaluate(vars)) === want;
  } catch {
    return false;
  }
}

function count(suite: Suite): { total: number; passed: number } {
  let total = 0, passed = 0;
  for (const t of suite.tests ?? []) { total++; if (passes(t.original)) passed++; }
  for (const s of suite.suites ?? []) { const c = count(s); total += c.total; passed += c.passed; }
  return { total, passed };
}

describe("CEL conformance ratchet", () => {
  it("passes at least as many cases as the recorded baseline", () => {
    const baseline = JSON.parse(readFileSync(new URL("../../../src/expr/conformance-baseline.json", import.meta.url), "utf8")) as { passed: number; total: number };
    const { total, passed } = count(tests);
    console.log(`conformance: ${passed}/${total} passed (baseline ${baseline.passed})`);
    assert.equal(total, baseline.total, "the conformance suite changed size: re-record the baseline");
    assert.ok(passed >= baseline.passed, `conformance pass count dropped: ${passed} < ${baseline.passed}`);
  });
});
