/**
 * JSON ↔ CEL value conversion. CEL ints are BigInt: JSON numbers become ints where the schema says
 * `integer` (or, without a schema, when they are whole — Go's unstructured decoding does the same)
 * and are written back as JSON numbers. Results CEL can hold but JSON cannot are rejected (§4.6).
 */
import { Environment, Optional } from "@marcbachmann/cel-js";
import { display } from "./string-format.js";
import { OmitSentinel } from "./lib-kro-runtime.js";
import { isCelMap, mapEntries } from "./lib-support.js";
import { mapValueSchema, type OpenApiSchema } from "./openapi-schema.js";

/**
 * A string as Go's JSON decoding leaves it: each lone surrogate becomes U+FFFD. Data from the API
 * server is already so (Go decoded it); this keeps other JSON (files, `json.decode`) in step, and
 * lets the string functions assume well-formed UTF-16 (library/code-points.ts).
 */
const wellFormed = (s: string): string => {
  const text = s as string & { isWellFormed(): boolean; toWellFormed(): string };
  return text.isWellFormed() ? s : text.toWellFormed();
};

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface ToCelOptions {
  /** Whole numbers without a schema become ints (default) or stay doubles (json.unmarshal). */
  readonly wholeNumbersAsInt?: boolean;
}

export function jsonToCel(value: unknown, schema?: OpenApiSchema, options: ToCelOptions = {}): unknown {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (schema?.type === "number") return value;
    if (schema?.type === "integer" || schema?.["x-kubernetes-int-or-string"] === true)
      return Number.isInteger(value) ? BigInt(value) : value;
    return Number.isInteger(value) && options.wholeNumbersAsInt !== false ? BigInt(value) : value;
  }
  if (typeof value === "string") {
    const text = wellFormed(value);
    // Secret data and other `format: byte` fields are bytes in kro's schema-aware values.
    if (schema?.type === "string" && schema.format === "byte") return new Uint8Array(Buffer.from(text, "base64"));
    // Kubernetes CEL: date/date-time fields are timestamps, duration fields durations. A value
    // that does not parse stays a string (the API server validated it; do not fail on it here).
    if (schema?.type === "string" && (schema.format === "date-time" || schema.format === "date")) {
      const time = Date.parse(text);
      return Number.isNaN(time) ? text : new Date(time);
    }
    if (schema?.type === "string" && schema.format === "duration") return parseDuration(text) ?? text;
    return text;
  }
  // Lists and objects are copied only when something inside them converts; otherwise the JSON
  // value itself is the CEL value (CEL values are immutable, so sharing is safe). The runtime keeps
  // one converted copy per cached object for as long as the object is cached: sharing the
  // unchanged parts (labels, names, most of a spec) keeps that copy small.
  if (Array.isArray(value)) {
    const items = value as readonly unknown[];
    let out: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const v = jsonToCel(items[i], schema?.items, options);
      if (out === undefined && v !== items[i]) out = items.slice(0, i);
      out?.push(v);
    }
    return out ?? value;
  }
  if (typeof value === "object") {
    const extra = schema === undefined ? undefined : mapValueSchema(schema);
    const entries = Object.entries(value);
    let out: [string, unknown][] | undefined;
    for (let i = 0; i < entries.length; i++) {
      const [k, v] = entries[i] as [string, unknown];
      const child = schema?.properties?.[k] ?? (typeof extra === "object" ? extra : undefined);
      const c = jsonToCel(v, child, options);
      const key = wellFormed(k);
      if (out === undefined && (c !== v || key !== k)) out = entries.slice(0, i);
      out?.push([key, c]);
    }
    // fromEntries: a "__proto__" key stays a key (an assignment would set the prototype).
    return out === undefined ? value : Object.fromEntries(out);
  }
  return value;
}

export interface ToJsonResult {
  /** The whole result was `omit()`: the caller removes the field. */
  readonly omitted: boolean;
  readonly value: JsonValue;
  /** Exact JSON text (ints beyond 2^53 keep every digit here). */
  readonly text: string;
}

/** Converts a CEL result to JSON; throws a plain Error naming what cannot be converted. */
export function celToJson(value: unknown): ToJsonResult {
  if (value instanceof OmitSentinel) return { omitted: true, value: null, text: "null" };
  const v = toJsonValue(value, "");
  return { omitted: false, value: v.value, text: v.text };
}

function toJsonValue(value: unknown, path: string): { value: JsonValue; text: string } {
  const where = path === "" ? "" : ` at ${path}`;
  if (value instanceof Optional)
    return value.hasValue() ? toJsonValue(value.value(), path) : { value: null, text: "null" };
  if (value === null || value === undefined) return { value: null, text: "null" };
  if (typeof value === "boolean" || typeof value === "string") return { value, text: JSON.stringify(value) };
  if (typeof value === "bigint") return { value: Number(value), text: value.toString() };
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`cannot convert ${value} to JSON${where}`);
    return { value, text: JSON.stringify(value) };
  }
  if (value instanceof Date) {
    const s = value.toISOString().replace(/\.000Z$/, "Z");
    return { value: s, text: JSON.stringify(s) };
  }
  if (value instanceof Uint8Array)
    throw new Error(`cannot convert bytes to JSON${where}: convert explicitly, e.g. string(x) or base64.encode(x)`);
  if (Array.isArray(value)) {
    // omit() elements vanish from lists (kro resolves the sentinel after evaluation).
    const items = value
      .filter((x: unknown) => !(x instanceof OmitSentinel))
      .map((x: unknown, i) => toJsonValue(x, `${path}[${i}]`));
    return { value: items.map((i) => i.value), text: `[${items.map((i) => i.text).join(",")}]` };
  }
  if (isCelMap(value)) {
    const out: Record<string, JsonValue> = {};
    const texts: string[] = [];
    for (const [k, x] of mapEntries(value)) {
      if (x instanceof OmitSentinel) continue;
      if (typeof k !== "string")
        throw new Error(`cannot convert map with ${typeof k === "bigint" ? "int" : typeof k} key to JSON${where}`);
      const c = toJsonValue(x, path === "" ? k : `${path}.${k}`);
      out[k] = c.value;
      texts.push(`${JSON.stringify(k)}:${c.text}`);
    }
    return { value: out, text: `{${texts.join(",")}}` };
  }
  const ctor = (value as { constructor?: { name?: string } }).constructor?.name;
  if (ctor === "Duration") {
    const s = display(value, true);
    return { value: s, text: JSON.stringify(s) };
  }
  throw new Error(
    `cannot convert ${ctor === "UnsignedInt" ? "uint" : (ctor ?? typeof value)} to JSON${where}: convert explicitly, e.g. int(x)`,
  );
}

/** Created on first use: turns Go duration strings ("1h30m") into cel-js durations. */
let durationEnv: Environment | undefined;

function parseDuration(text: string): unknown {
  durationEnv ??= new Environment({ unlistedVariablesAreDyn: true });
  try {
    return durationEnv.evaluate("duration(s)", { s: text });
  } catch {
    return undefined;
  }
}
