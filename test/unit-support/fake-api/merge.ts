/**
 * The two ways a write merges into what is stored: a JSON merge patch (RFC 7386, exact) and a
 * simplified server-side apply.
 *
 * Server-side apply here is NOT the API server's structured merge:
 *  - maps merge key by key; lists and scalars are replaced whole by the applied value (no
 *    list-map merge keys such as containers by name);
 *  - a field the same manager applied last time and omits now is removed (the real rule, but
 *    tracked per manager as its last applied object, not as field sets);
 *  - managers never conflict: `force` is accepted and changes nothing, and two managers setting
 *    one field just overwrite each other (the controller always applies with force anyway);
 *  - managedFields hold one entry per manager (manager, operation, time) with empty fieldsV1.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** RFC 7386: null deletes, objects merge, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): Json {
  if (!isObject(patch)) return clone(patch as Json);
  const result: JsonObject = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) result[key] = mergePatch(result[key], value);
  // null deletes (kept apart: a key is removed by rebuilding the object, not with delete)
  return Object.fromEntries(Object.entries(result).filter(([key]) => patch[key] !== null));
}

/** The applied object laid over the stored one (maps merge, the rest is replaced). */
export function mergeApplied(target: unknown, applied: unknown): Json {
  if (!isObject(applied) || !isObject(target)) return clone(applied as Json);
  const result: JsonObject = clone(target);
  for (const [key, value] of Object.entries(applied)) result[key] = mergeApplied(result[key], value);
  return result;
}

/** `object` without what `before` (this manager's last apply) set and `now` no longer does. */
export function dropReleased(object: JsonObject, before: unknown, now: unknown): JsonObject {
  if (!isObject(before)) return object;
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(object)) {
    const was = before[key];
    const is = isObject(now) ? now[key] : undefined;
    if (was !== undefined && is === undefined) continue;
    result[key] = isObject(was) && isObject(is) && isObject(value) ? dropReleased(value, was, is) : value;
  }
  return result;
}
