/**
 * Remembers what we last applied to each child (by UID) so a reconcile that would change
 * nothing sends nothing — even when the API server normalised what we sent (quantities,
 * defaulted fields) so that our desired object is no longer a literal subset of the live one.
 */
import type { KubeJson } from "../runtime/index.js";
import { isJsonSubset } from "./json-equal.js";

interface Applied {
  readonly desired: string;
  readonly generation: number | undefined;
  /** Our labels and annotations as we sent them (kept parsed: compared on every check). */
  readonly metadata: { readonly labels: unknown; readonly annotations: unknown };
}

const MAX_ENTRIES = 200_000;

export class ApplyMemo {
  private readonly byUid = new Map<string, Applied>();

  record(desired: KubeJson, response: KubeJson): void {
    const metadata = response.metadata as { uid?: string; generation?: number } | undefined;
    if (metadata?.uid === undefined) return;
    if (this.byUid.size >= MAX_ENTRIES) this.byUid.clear();
    this.byUid.set(metadata.uid, { desired: JSON.stringify(desired), generation: metadata.generation, metadata: metadataOf(desired) });
  }

  forget(uid: string): void {
    this.byUid.delete(uid);
  }

  /** True when applying `desired` over `live` would change nothing we manage. */
  upToDate(desired: KubeJson, live: KubeJson | undefined): boolean {
    if (live === undefined) return false;
    if (isJsonSubset(asStored(desired), live)) return true;
    const metadata = live.metadata as { uid?: string; generation?: number; labels?: unknown; annotations?: unknown } | undefined;
    const applied = metadata?.uid === undefined ? undefined : this.byUid.get(metadata.uid);
    if (applied === undefined || applied.generation === undefined) return false;
    // Same desired object, spec untouched since (generation), and our labels/annotations intact.
    return applied.desired === JSON.stringify(desired) && applied.generation === metadata?.generation
      && isJsonSubset(applied.metadata, { labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {} });
  }
}

/**
 * The object as the API server stores it, where that differs from what we send: a Secret's
 * write-only `stringData` comes back base64-encoded under `data`. Without this every reconcile
 * (Secrets carry no metadata.generation for the memo to rely on) would re-apply every Secret.
 */
export function asStored(desired: KubeJson): KubeJson {
  const stringData = desired.stringData;
  if (desired.apiVersion !== "v1" || desired.kind !== "Secret" || typeof stringData !== "object" || stringData === null || Array.isArray(stringData)) return desired;
  const encoded = Object.fromEntries(Object.entries(stringData).map(([k, v]) => [k, typeof v === "string" ? Buffer.from(v, "utf8").toString("base64") : v]));
  const data = typeof desired.data === "object" && desired.data !== null ? desired.data : {};
  const { stringData: _written, ...rest } = desired;
  // stringData wins over data for the same key, as on the server.
  return { ...rest, data: { ...data, ...encoded } };
}

function metadataOf(desired: KubeJson): Applied["metadata"] {
  const metadata = desired.metadata as { labels?: unknown; annotations?: unknown } | undefined;
  return { labels: metadata?.labels ?? {}, annotations: metadata?.annotations ?? {} };
}
