/**
 * Comparing JSON the way the API server stores it: key order never matters, and 3 equals 3.0.
 * Used to skip writes that would change nothing — a converged instance must cost no writes.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((k) => left[k] !== undefined);
  if (keys.length !== Object.keys(right).filter((k) => right[k] !== undefined).length) return false;
  return keys.every((k) => jsonEqual(left[k], right[k]));
}

/**
 * True when every field `desired` sets has the same value in `live` (lists compared whole).
 * Fields the server or other managers added to `live` do not matter: applying `desired` again
 * would change nothing we own.
 */
export function isJsonSubset(desired: unknown, live: unknown): boolean {
  if (desired === live) return true;
  if (desired === null || typeof desired !== "object") return jsonEqual(desired, live);
  if (live === null || typeof live !== "object") return false;
  if (Array.isArray(desired)) {
    return (
      Array.isArray(live) && desired.length === live.length && desired.every((item, i) => isJsonSubset(item, live[i]))
    );
  }
  const liveRecord = live as Record<string, unknown>;
  return Object.entries(desired as Record<string, unknown>).every(
    ([key, value]) => value === undefined || isJsonSubset(value, liveRecord[key]),
  );
}
