/**
 * A field mask: which parts of a JSON object to keep. `true` keeps the whole value; a map keeps
 * only the listed keys, each under its own mask. Arrays and scalars are always kept whole (a
 * mask never reaches inside a list: list items have no stable names). Pure; used to keep only
 * what a graph reads of its children in the controller's caches (child-field-masks.ts).
 */
import { compareCodeUnits } from "../api/index.js";

export type FieldMask = true | ReadonlyMap<string, FieldMask>;

/** The mask that keeps exactly one path (and everything below it); [] keeps everything. */
export function maskOfPath(path: readonly string[]): FieldMask {
  let mask: FieldMask = true;
  for (let i = path.length - 1; i >= 0; i--) mask = new Map([[path[i] as string, mask]]);
  return mask;
}

export function mergeMasks(a: FieldMask, b: FieldMask): FieldMask {
  if (a === true || b === true) return true;
  const merged = new Map(a);
  for (const [key, mask] of b) {
    const existing = merged.get(key);
    merged.set(key, existing === undefined ? mask : mergeMasks(existing, mask));
  }
  return merged;
}

/** True when everything `inner` keeps, `outer` keeps too. */
export function coversMask(outer: FieldMask, inner: FieldMask): boolean {
  if (outer === true) return true;
  if (inner === true) return false;
  for (const [key, mask] of inner) {
    const kept = outer.get(key);
    if (kept === undefined || !coversMask(kept, mask)) return false;
  }
  return true;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `value` with only what `mask` keeps; unchanged (same reference) when nothing is dropped. */
export function projectJson<T>(value: T, mask: FieldMask): T {
  if (mask === true || !isPlainObject(value)) return value;
  const kept: [string, unknown][] = [];
  let changed = false;
  for (const [key, child] of Object.entries(value)) {
    const childMask = mask.get(key);
    if (childMask === undefined) {
      changed = true;
      continue;
    }
    const projected = projectJson(child, childMask);
    if (projected !== child) changed = true;
    kept.push([key, projected]);
  }
  // fromEntries makes own data properties, so a "__proto__" key stays a key.
  return changed ? (Object.fromEntries(kept) as T) : value;
}

/** The shape of a template: every key of every nested object; any other value is kept whole. */
export function templateMask(template: unknown): FieldMask {
  if (!isPlainObject(template)) return true;
  return new Map(Object.entries(template).map(([key, value]) => [key, templateMask(value)]));
}

/** A readable form for tests and logs: `{"metadata":{"name":true},"status":true}`. */
export function describeMask(mask: FieldMask): unknown {
  return mask === true
    ? true
    : Object.fromEntries([...mask].sort(([a], [b]) => compareCodeUnits(a, b)).map(([k, m]) => [k, describeMask(m)]));
}
