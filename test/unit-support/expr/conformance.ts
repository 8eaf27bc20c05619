// Runs one case of the official CEL conformance suite (@bufbuild/cel-spec) through the kro
// environment and says why it did not pass. Shared by the ratchet test and by anyone who wants to
// look at the failures (`runConformance()` of dist/test/unit-support/expr/conformance.js).
import { tests } from "@bufbuild/cel-spec/testdata/conformance.js";
import { compileExpression } from "../../../src/expr/compile.js";
import { createKroCelEnvironment } from "../../../src/expr/environment.js";
import { isCelMap, mapEntries } from "../../../src/expr/lib-support.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Suite {
  name: string;
  suites?: Suite[];
  tests?: { original: Record<string, Json> }[];
}

/** A case whose input or expected value needs something kro's environment cannot express. */
class Unsupported extends Error {}

/** Scalars of proto JSON (int64 arrive as strings); anything else is a malformed case. */
function text(v: Json | undefined): string {
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return String(v);
  throw new Unsupported("a non-scalar where a scalar was expected");
}

/** cel.expr.Value (proto JSON) → a canonical string; results are canonicalised the same way. */
function expectedCanon(v: Json): string {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Unsupported("malformed value");
  if ("int64Value" in v) return `i:${text(v.int64Value)}`;
  if ("uint64Value" in v) return `u:${text(v.uint64Value)}`;
  if ("doubleValue" in v) return `d:${String(Number(v.doubleValue))}`;
  if ("stringValue" in v) return `s:${JSON.stringify(v.stringValue)}`;
  if ("boolValue" in v) return `b:${text(v.boolValue)}`;
  if ("nullValue" in v) return "null";
  if ("bytesValue" in v) return `x:${Buffer.from(text(v.bytesValue), "base64").toString("hex")}`;
  if ("typeValue" in v) return `t:${text(v.typeValue)}`;
  if ("listValue" in v) {
    const values = (v.listValue as { values?: Json[] } | null)?.values ?? [];
    return `[${values.map(expectedCanon).join(",")}]`;
  }
  if ("mapValue" in v) {
    const entries = (v.mapValue as { entries?: { key: Json; value: Json }[] } | null)?.entries ?? [];
    return `{${entries
      .map((e) => `${expectedCanon(e.key)}=${expectedCanon(e.value)}`)
      .sort()
      .join(",")}}`;
  }
  throw new Unsupported(`expected value of kind ${Object.keys(v).join(",")}`);
}

function actualCanon(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "bigint") return `i:${v}`;
  if (typeof v === "number") return `d:${String(v)}`;
  if (typeof v === "string") return `s:${JSON.stringify(v)}`;
  if (typeof v === "boolean") return `b:${String(v)}`;
  if (v instanceof Uint8Array) return `x:${Buffer.from(v).toString("hex")}`;
  if (Array.isArray(v)) return `[${v.map(actualCanon).join(",")}]`;
  if (typeof v === "object" && v.constructor.name === "UnsignedInt")
    return `u:${String((v as { valueOf(): bigint }).valueOf())}`;
  // cel-js spells CEL's null_type "null"; every other type name is CEL's.
  if (typeof v === "object" && v.constructor.name === "Type") {
    const name = (v as { name: string }).name;
    return `t:${name === "null" ? "null_type" : name}`;
  }
  if (isCelMap(v))
    return `{${mapEntries(v)
      .map(([k, x]) => `${actualCanon(k)}=${actualCanon(x)}`)
      .sort()
      .join(",")}}`;
  return `?:${typeof v === "object" ? `${v.constructor.name}:${(v as { toString(): string }).toString()}` : typeof v}`;
}

function bindingsOf(raw: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return out;
  for (const [name, b] of Object.entries(raw)) {
    const value = (b as { value?: Json } | null)?.value;
    if (value === undefined) throw new Unsupported("a binding that is not a plain value");
    out[name] = fromExpected(value);
  }
  return out;
}

function fromExpected(v: Json): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Unsupported("malformed binding");
  if ("int64Value" in v) return BigInt(text(v.int64Value));
  if ("uint64Value" in v) return compileExpression(env, `${BigInt(text(v.uint64Value))}u`).evaluate({});
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("nullValue" in v) return null;
  if ("bytesValue" in v) return new Uint8Array(Buffer.from(text(v.bytesValue), "base64"));
  if ("listValue" in v) return ((v.listValue as { values?: Json[] } | null)?.values ?? []).map(fromExpected);
  if ("objectValue" in v) return wellKnown(v.objectValue);
  if ("mapValue" in v) {
    const entries = (v.mapValue as { entries?: { key: Json; value: Json }[] } | null)?.entries ?? [];
    const pairs = entries.map((e) => [fromExpected(e.key), fromExpected(e.value)] as const);
    if (pairs.every(([k]) => typeof k === "string")) return Object.fromEntries(pairs);
    return new Map(pairs);
  }
  throw new Unsupported(`a binding of kind ${Object.keys(v).join(",")}`);
}

const env = createKroCelEnvironment();

/** A google.protobuf.Any holding a Duration or Timestamp (proto JSON: its string form). */
function wellKnown(any: Json | undefined): unknown {
  const o = any as { "@type"?: string; value?: Json } | null;
  const kind = {
    "type.googleapis.com/google.protobuf.Duration": "duration",
    "type.googleapis.com/google.protobuf.Timestamp": "timestamp",
  }[o?.["@type"] ?? ""];
  if (kind === undefined || typeof o?.value !== "string")
    throw new Unsupported(`a binding of message type ${o?.["@type"] ?? "?"}`);
  return compileExpression(env, `${kind}(${JSON.stringify(o.value)})`).evaluate({});
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "";

/** undefined when the case passes, else why not (one line). */
export function failureOf(t: Readonly<Record<string, Json>>): string | undefined {
  const expr = t.expr;
  if (typeof expr !== "string") return "no expression";
  if (t.checkOnly === true) return "check-only case (asserts a static type, nothing to evaluate)";
  if (t.container !== undefined) return `needs proto container ${text(t.container)}`;
  let vars: Record<string, unknown>;
  let want: string | undefined;
  try {
    vars = bindingsOf(t.bindings ?? null);
    if (t.evalError === undefined) {
      const expected = t.value ?? (t.typedResult as { result?: Json } | undefined)?.result;
      want = expected === undefined ? "b:true" : expectedCanon(expected);
    }
  } catch (e) {
    return `unsupported: ${message(e)}`;
  }
  let compiled;
  try {
    compiled = compileExpression(env, expr);
  } catch (e) {
    return `parse error: ${message(e)}`;
  }
  let got: string;
  try {
    got = actualCanon(compiled.evaluate(vars));
  } catch (e) {
    return want === undefined ? undefined : `evaluation error: ${message(e)}`;
  }
  if (want === undefined) return `expected an error, got ${got}`;
  return got === want ? undefined : `got ${got}, want ${want}`;
}

/** An expression that names a protobuf message type (a message literal or a test proto). */
const PROTO_MESSAGE = /\bgoogle\.protobuf\.[A-Z]\w*\s*\{|\bcel\.expr\.conformance\.|\b(Nested)?TestAllTypes\b/;

export interface CaseOutcome {
  /** `group/subgroup/case`, unique in the suite. */
  readonly name: string;
  readonly group: string;
  readonly expr: string;
  readonly failure: string | undefined;
  /** Why the case tests something kro's environment cannot have; undefined when it can. */
  readonly outsideKro: string | undefined;
}

/**
 * Whether kro's environment could run the case at all, from the case alone (not its outcome):
 * kro declares no protobuf message types and no proto container (its data is JSON), declares only
 * identifier-named variables (resource ids), and type-checks every expression (cel-go Compile).
 */
function outsideKro(o: Readonly<Record<string, Json>>, expr: string): string | undefined {
  if (o.container !== undefined || PROTO_MESSAGE.test(expr)) return "protobuf message types";
  if (o.disableCheck === true) return "unchecked evaluation";
  const declared = Array.isArray(o.typeEnv) ? o.typeEnv.map((d) => (d as { name?: Json } | null)?.name) : [];
  if (declared.some((n) => typeof n === "string" && n.includes("."))) return "a dotted variable name";
  return undefined;
}

/** Every case of the suite with its outcome, in suite order. */
export function runConformance(): CaseOutcome[] {
  const out: CaseOutcome[] = [];
  const walk = (suite: Suite, path: string[]): void => {
    for (const t of suite.tests ?? []) {
      const name = [...path, text(t.original.name)].join("/");
      const o = t.original;
      const expr = typeof o.expr === "string" ? o.expr : "";
      out.push({ name, group: path[0] ?? suite.name, expr, failure: failureOf(o), outsideKro: outsideKro(o, expr) });
    }
    for (const s of suite.suites ?? []) walk(s, [...path, s.name]);
  };
  for (const group of (tests as Suite).suites ?? []) walk(group, [group.name]);
  return out;
}
