/**
 * The pure half of one apply round: which desired children to write, and how. Every write is
 * guarded so that it can only ever touch an object we own or create a new one:
 *
 * - a child we recorded is applied with `metadata.uid` = its recorded UID. The API server refuses
 *   the write (409) if no object with that UID is there — deleted, or replaced by someone else's —
 *   so a stale cache or a look-alike made after ours was deleted can never be overwritten;
 * - a child we have no record of is applied "create-only": with `metadata.resourceVersion` set to
 *   the largest possible value. Server-side apply ignores it when it creates the object and
 *   refuses the write (409) when any object already exists (none can have that version), so the
 *   write creates the object or writes nothing — one request, no GET first. It carries the
 *   instance's creation key, which proves later that we made it.
 * - a child the user asked us to adopt is applied with the UID of the live object we judged.
 *
 * The executor (apply-rounds.ts, driven by reconcile.ts) performs the steps and turns their outcomes into inventory
 * records (apply-outcome.ts); nothing here does I/O.
 */
import { ANNOTATIONS, LABELS } from "../../api/index.js";
import { identityKey, identityOf, type KubeJson, type ObjectIdentity } from "../../runtime/index.js";
import { childKey, type Inventory, type OwnedChild } from "./inventory.js";

export type ApplyMode = "update" | "create" | "adopt";

export interface ApplyStep {
  readonly mode: ApplyMode;
  readonly nodeId: string;
  readonly identity: ObjectIdentity;
  /** The desired object as the runtime rendered it (what the apply memo remembers). */
  readonly desired: KubeJson;
  /** What goes on the wire: the desired object plus the UID guard (and the creation key). */
  readonly body: KubeJson;
  /** The record this write is made under (update and adopt). */
  readonly entry?: OwnedChild;
}

export interface ApplyPlanInput {
  readonly desired: readonly KubeJson[];
  readonly inventory: Inventory & { readonly key: string };
  /** The cached live object (informer plus this reconcile's own writes); may be stale. */
  readonly cached: (identity: ObjectIdentity) => KubeJson | undefined;
  /** True when applying `desired` over `live` would change nothing we manage. */
  readonly upToDate: (desired: KubeJson, live: KubeJson) => boolean;
  /**
   * True when this reconcile already wrote `desired` as it is now (or must not write it again):
   * a child is written again in the same reconcile only when its desired state changed since —
   * a dependent rendered from a dependency's cached copy, re-rendered from its apply answer.
   */
  readonly settled: (key: string, desired: KubeJson) => boolean;
}

/** No object can have this resourceVersion (etcd revisions are far below 2^64): "must not exist". */
export const CREATE_ONLY_RESOURCE_VERSION = "18446744073709551615";

export function nodeIdOf(object: KubeJson): string {
  return (object.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[LABELS.nodeId] ?? "";
}

/** `object` with a write guard in its metadata (and extra annotations). */
export function guarded(
  object: KubeJson,
  guard: { uid: string } | { resourceVersion: string },
  extraAnnotations: Record<string, string> = {},
): KubeJson {
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  const annotations = { ...((metadata.annotations as Record<string, string> | undefined) ?? {}), ...extraAnnotations };
  return {
    ...object,
    metadata: { ...metadata, ...guard, ...(Object.keys(annotations).length === 0 ? {} : { annotations }) },
  };
}

export const withUid = (object: KubeJson, uid: string, extraAnnotations: Record<string, string> = {}): KubeJson =>
  guarded(object, { uid }, extraAnnotations);

/** The writes of one round. Children already up to date cost nothing. */
export function planApplies(input: ApplyPlanInput): ApplyStep[] {
  const byKey = new Map(input.inventory.entries.map((e) => [childKey(e), e]));
  const steps: ApplyStep[] = [];
  for (const desired of input.desired) {
    const identity = identityOf(desired);
    if (identity === undefined || input.settled(identityKey(identity), desired)) continue;
    const nodeId = nodeIdOf(desired);
    const entry = byKey.get(childKey(identity));
    const cached = input.cached(identity);
    if (entry !== undefined) {
      const cachedUid = (cached?.metadata as { uid?: string } | undefined)?.uid;
      if (cached !== undefined && cachedUid === entry.uid && input.upToDate(desired, cached)) continue;
      // Our own children keep the creation key on every write: it is what finds them again if
      // the inventory is ever lost. Adopted objects never get it (we did not create them).
      const body =
        entry.ownership === "adopted"
          ? withUid(desired, entry.uid)
          : withUid(desired, entry.uid, { [ANNOTATIONS.creationKey]: input.inventory.key });
      steps.push({ mode: entry.ownership === "adopted" ? "adopt" : "update", nodeId, identity, desired, body, entry });
      continue;
    }
    const body = guarded(
      desired,
      { resourceVersion: CREATE_ONLY_RESOURCE_VERSION },
      { [ANNOTATIONS.creationKey]: input.inventory.key },
    );
    steps.push({ mode: "create", nodeId, identity, desired, body });
  }
  return steps;
}
