/**
 * Cached objects repeat the same short strings many times: every child of an instance carries
 * its namespace, the instance's uid (owner reference and labels), the kro labels, kind and
 * apiVersion, condition reasons and messages. JSON.parse gives each occurrence its own copy —
 * at 1,000 fan-out instances ~27,000 uid strings for ~8,000 distinct uids.
 *
 * A string used as a property key is internalized by V8: the key an object hands back is the
 * one canonical copy of `s`. V8's table of internalized strings is weak, so, unlike a Map pool,
 * this keeps nothing alive that the caches no longer hold (old resourceVersions, timestamps).
 */

/** Longer strings (certificates, Secret data, last-applied annotations) are rarely repeated. */
const MAX_INTERNED_LENGTH = 256;

/**
 * One key at a time goes through this object and back out. It has no prototype, so V8 keeps it
 * in dictionary mode: a key costs a hash-table insert. An object literal per key (`{ [s]: 0 }`,
 * this file's first form) made V8 create a hidden class per distinct string, which made interning
 * 4.6 % of the controller's CPU while 1,000 fan-out instances converged
 * (docs/performance-archive.md, "Pages the controller need not touch").
 */
const door: Record<string, 0> = Object.create(null) as Record<string, 0>;

/**
 * An array index ("0" … "4294967294") is stored as an element, not a key, and comes back as a new
 * string: resourceVersions and counts are left as they are.
 */
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;

/** The canonical copy of a short string (itself if long or an array index). */
export function internString(s: string): string {
  if (s.length > MAX_INTERNED_LENGTH || ARRAY_INDEX.test(s)) return s;
  door[s] = 0;
  for (const key in door) {
    Reflect.deleteProperty(door, key);
    return key;
  }
  return s;
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
