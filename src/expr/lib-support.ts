/**
 * Shared plumbing for the function libraries: the CEL environment type, namespaces such as
 * `random.` or `lists.` (cel-js models them as constants of a private type), and the error class
 * library functions throw so messages stay kro-like.
 */
import type { Environment } from "@marcbachmann/cel-js";

export type CelEnvironment = Environment;

/** What a library may need while running: the cost meter of the evaluation in progress. */
export interface LibraryContext {
  /** Adds `units` to the current evaluation's cost; throws when the budget is exceeded. */
  charge(units: number): void;
}

/** Thrown by library functions; the evaluator maps it to ExprEvaluationError. */
export class LibraryError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "LibraryError";
    this.code = code;
  }
}

/**
 * Declares `name` as a namespace (`name.fn(...)` calls) and returns the receiver type to use in
 * signatures. Namespaces that already exist in cel-js (`optional`, `cel`) must not be redeclared.
 */
export function declareNamespace(env: CelEnvironment, name: string): string {
  const typeName = `KroNs${name[0]?.toUpperCase() ?? ""}${name.slice(1)}`;
  // A distinct class per namespace: cel-js maps values to types by constructor.
  const Namespace = {
    [typeName]: class {
      readonly namespace = name;
    },
  }[typeName] as new () => object;
  env.registerType(typeName, Namespace);
  env.registerConstant(name, typeName, new Namespace());
  return typeName;
}

export type CelMap = Record<string, unknown> | Map<unknown, unknown>;

export function isCelMap(v: unknown): v is CelMap {
  if (v instanceof Map) return true;
  if (typeof v !== "object" || v === null || Array.isArray(v) || v instanceof Uint8Array) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function mapEntries(m: CelMap): [unknown, unknown][] {
  return m instanceof Map ? [...m.entries()] : Object.entries(m);
}

/** Builds a CEL map value; string-keyed maps stay plain objects (what cel-js produces too). */
export function makeMap(entries: readonly (readonly [unknown, unknown])[]): CelMap {
  if (entries.every(([k]) => typeof k === "string")) {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of entries) out[k as string] = v;
    return { ...out };
  }
  return new Map(entries);
}

export function toIndex(i: bigint, size: number, what: string, allowEnd = false): number {
  const limit = allowEnd ? size : size - 1;
  if (i < 0n || i > BigInt(limit))
    throw new LibraryError("index_out_of_bounds", `${what}: index out of bounds: ${i}, size ${size}`);
  return Number(i);
}
