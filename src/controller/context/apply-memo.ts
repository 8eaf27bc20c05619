/**
 * Remembers what we last applied to each child (by UID) so a reconcile that would change
 * nothing sends nothing — even when the API server normalised what we sent (quantities,
 * defaulted fields) so that our desired object is no longer a literal subset of the live one.
 */
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { KubeJson } from "../../runtime/index.js";
import { isJsonSubset } from "./json-equal.js";

interface Applied {
  /** SHA-256 of the desired object's JSON (base64url, 128 bits): never the JSON itself. */
  readonly digest: string;
  readonly generation: number | undefined;
}

/** Default budget: about 70,000 children (an entry — UID, digest, generation — is estimated at 236 bytes). */
export const DEFAULT_APPLY_MEMO_BYTES = 16 * 1024 * 1024;
/** Estimated bytes of an entry: its strings as UTF-16, plus Map and object overhead. */
const entryBytes = (uid: string, applied: Applied): number => 120 + (uid.length + applied.digest.length) * 2;

export class ApplyMemo {
  /**
   * Least-recently-used first out, one entry at a time, within a byte budget: a controller with
   * more children than fit re-applies only the coldest ones, never everything at once.
   */
  private readonly byUid: LRUCache<string, Applied>;

  constructor(options: { maxBytes?: number } = {}) {
    this.byUid = new LRUCache<string, Applied>({
      maxSize: Math.max(1024, options.maxBytes ?? DEFAULT_APPLY_MEMO_BYTES),
      sizeCalculation: (applied, uid) => entryBytes(uid, applied),
    });
  }

  /** Entries held, and their estimated bytes (metrics, tests). */
  get stats(): { entries: number; bytes: number } {
    return { entries: this.byUid.size, bytes: this.byUid.calculatedSize };
  }

  record(desired: KubeJson, response: KubeJson): void {
    const metadata = response.metadata as { uid?: string; generation?: number } | undefined;
    if (metadata?.uid === undefined) return;
    this.byUid.set(metadata.uid, { digest: digestOf(desired), generation: metadata.generation });
  }

  forget(uid: string): void {
    this.byUid.delete(uid);
  }

  /** True when applying `desired` over `live` would change nothing we manage. */
  upToDate(desired: KubeJson, live: KubeJson | undefined): boolean {
    if (live === undefined) return false;
    if (isJsonSubset(asStored(desired), live)) return true;
    const metadata = live.metadata as
      { uid?: string; generation?: number; labels?: unknown; annotations?: unknown } | undefined;
    const applied = metadata?.uid === undefined ? undefined : this.byUid.get(metadata.uid);
    if (applied === undefined || applied.generation === undefined) return false;
    // Same desired object (so the same labels and annotations as sent), spec untouched since
    // (generation), and our labels/annotations still on the live object.
    return (
      applied.generation === metadata?.generation &&
      applied.digest === digestOf(desired) &&
      isJsonSubset(metadataOf(desired), { labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {} })
    );
  }
}

function digestOf(desired: KubeJson): string {
  return createHash("sha256").update(JSON.stringify(desired)).digest("base64url").slice(0, 22);
}

/**
 * The object as the API server stores it, where that differs from what we send: a Secret's
 * write-only `stringData` comes back base64-encoded under `data`. Without this every reconcile
 * (Secrets carry no metadata.generation for the memo to rely on) would re-apply every Secret.
 */
export function asStored(desired: KubeJson): KubeJson {
  const stringData = desired.stringData;
  if (
    desired.apiVersion !== "v1" ||
    desired.kind !== "Secret" ||
    typeof stringData !== "object" ||
    stringData === null ||
    Array.isArray(stringData)
  )
    return desired;
  const encoded = Object.fromEntries(
    Object.entries(stringData).map(([k, v]) => [
      k,
      typeof v === "string" ? Buffer.from(v, "utf8").toString("base64") : v,
    ]),
  );
  const data = typeof desired.data === "object" && desired.data !== null ? desired.data : {};
  const { stringData: _written, ...rest } = desired;
  // stringData wins over data for the same key, as on the server.
  return { ...rest, data: { ...data, ...encoded } };
}

function metadataOf(desired: KubeJson): { readonly labels: unknown; readonly annotations: unknown } {
  const metadata = desired.metadata as { labels?: unknown; annotations?: unknown } | undefined;
  return { labels: metadata?.labels ?? {}, annotations: metadata?.annotations ?? {} };
}
