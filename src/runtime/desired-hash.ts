/**
 * A collection item's `updated()` under propagateWhen: the item carries a hash of the desired
 * object it was last written as, so whether it runs its current desired object is read from the
 * live object alone (no memory of past writes, nothing lost on restart) and is not fooled by
 * fields the API server defaults or normalises.
 */
import { createHash } from "node:crypto";
import { ANNOTATIONS } from "../api/index.js";
import type { KubeJson } from "./types.js";

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function annotationsOf(object: KubeJson): Record<string, unknown> {
  const metadata = object.metadata as { annotations?: unknown } | undefined;
  const annotations = metadata?.annotations;
  return annotations !== null && typeof annotations === "object" ? (annotations as Record<string, unknown>) : {};
}

/** `desired` with the hash of itself (without any earlier hash) in its annotations. */
export function stampDesiredHash(desired: KubeJson): KubeJson {
  const { [ANNOTATIONS.desiredHash]: _earlier, ...rest } = annotationsOf(desired);
  const metadata = (desired.metadata ?? {}) as Record<string, unknown>;
  const unstamped = { ...desired, metadata: { ...metadata, annotations: rest } };
  const hash = createHash("sha256").update(canonical(unstamped), "utf8").digest("hex").slice(0, 16);
  return { ...desired, metadata: { ...metadata, annotations: { ...rest, [ANNOTATIONS.desiredHash]: hash } } };
}

/** True when `live` was last written as `stamped` (the output of stampDesiredHash). */
export function runsDesired(stamped: KubeJson, live: KubeJson | undefined): boolean {
  if (live === undefined) return false;
  const want = annotationsOf(stamped)[ANNOTATIONS.desiredHash];
  return want !== undefined && annotationsOf(live)[ANNOTATIONS.desiredHash] === want;
}
