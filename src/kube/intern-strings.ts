/**
 * Cached objects repeat the same short strings many times: every child of an instance carries
 * its namespace, the instance's uid (owner reference and labels), the kro labels, kind and
 * apiVersion, condition reasons and messages. JSON.parse gives each occurrence its own copy —
 * at 1,000 fan-out instances ~27,000 uid strings for ~8,000 distinct uids (issue #27).
 *
 * A string used as a property key is internalized by V8: `Object.keys({ [s]: 0 })[0]` is the
 * one canonical copy of `s`. V8's table of internalized strings is weak, so, unlike a Map pool,
 * this keeps nothing alive that the caches no longer hold (old resourceVersions, timestamps).
 */

/** Longer strings (certificates, Secret data, last-applied annotations) are rarely repeated. */
const MAX_INTERNED_LENGTH = 256;

/** The canonical copy of a short string (itself if long). */
export function internString(s: string): string {
  return s.length > MAX_INTERNED_LENGTH ? s : (Object.keys({ [s]: 0 })[0] ?? s);
}

/**
 * Replaces, in place, every short string value in a freshly decoded JSON value with its
 * canonical copy; returns the value. Frozen parts (shared test fixtures) are left as they are.
 */
export function internStrings<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === "string") value[i] = internString(item);
      else internStrings(item);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (typeof item === "string") record[key] = internString(item);
    else internStrings(item);
  }
  return value;
}
