/**
 * Label values are at most 63 characters (and must start and end alphanumeric), but the names
 * kro writes into labels are not: an object name may have 253 characters, and so may an RGD's
 * name or an API group. Like Kubernetes' own tools (e.g. the Job controller's pod labels, Helm's
 * truncated names), a value that does not fit is shortened deterministically: a readable prefix,
 * a dash and a hash of the whole value. Every writer and every reader of these labels goes
 * through `labelValue`, so selectors and lookups agree with what was written.
 */
import { createHash } from "node:crypto";

export const MAX_LABEL_VALUE_LENGTH = 63;

const VALID = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Hex digits of the hash (40 bits: collisions need ~10^6 names sharing one 52-character prefix). */
const HASH_LENGTH = 10;

/** `value` when it is a valid label value, else a 63-character prefix-dash-hash form of it. */
export function labelValue(value: string): string {
  if (value.length <= MAX_LABEL_VALUE_LENGTH && VALID.test(value)) return value;
  const hash = createHash("sha256").update(value, "utf8").digest("hex").slice(0, HASH_LENGTH);
  const prefix = value
    .slice(0, MAX_LABEL_VALUE_LENGTH - HASH_LENGTH - 1)
    .replace(/[^-A-Za-z0-9_.]/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .replace(/[^A-Za-z0-9]+$/, "");
  return prefix === "" ? hash : `${prefix}-${hash}`;
}

/** True when `label` is what `labelValue` makes of `value` (lookups by a label read from a child). */
export function labelMatches(label: string | undefined, value: string): boolean {
  return label !== undefined && label === labelValue(value);
}
