/**
 * The pure half of removing children (instance deletion and prune): for each recorded child, what
 * to do now, given what the cache or a live read shows. Nothing is removed unless the live object
 * is the one we recorded (same UID — the DELETE carries it as a precondition) and still carries
 * this instance's identity; an entry the graph could not have produced (inventory-validation.ts)
 * additionally needs the creation key that only we stamp. Adopted children are released, not
 * deleted, unless the user opted into deletion. An object marked `helm.sh/resource-policy: keep`
 * is released, never deleted, whoever made it — what `helm uninstall` (and an upgrade that drops
 * it) does with it. A child already terminating is waited for, never sent a second DELETE.
 */
import { ANNOTATIONS } from "../../api/index.js";
import type { KubeJson } from "../../runtime/index.js";
import type { AdoptionPolicy } from "./apply-outcome.js";
import type { OwnedChild } from "./inventory.js";
import { carriesOwnerLabel, type InstanceIdentity } from "./ownership.js";

export type RemovalAction =
  | { readonly kind: "delete" }
  | { readonly kind: "release" }
  /** Terminating (finalizers run): wait for its delete event. */
  | { readonly kind: "wait" }
  /** Gone, or replaced by an object that is not ours: nothing left to do, drop the record. */
  | { readonly kind: "gone" }
  /** Not provably ours: never touched; the record is dropped and the reason reported. */
  | { readonly kind: "refuse"; readonly reason: string }
  /** The cache cannot tell: read the live object and decide again. */
  | { readonly kind: "read" };

export interface RemovalContext {
  readonly owner: InstanceIdentity;
  readonly creationKey: string | undefined;
  readonly policy: AdoptionPolicy;
  /** False for entries the current graph could not have produced (they need the creation key). */
  readonly validated: boolean;
}

import { HELM_RESOURCE_POLICY } from "./write-gate.js";

interface Meta {
  uid?: string;
  deletionTimestamp?: string;
  annotations?: Record<string, unknown>;
}

/**
 * `live`: the object at the entry's identity, or undefined when absent; `source` says whether it
 * came from a live read (authoritative) or from the cache (absence is not proof there).
 */
export function decideRemoval(
  entry: OwnedChild,
  live: KubeJson | undefined,
  source: "cache" | "live",
  ctx: RemovalContext,
): RemovalAction {
  if (live === undefined) return source === "live" ? { kind: "gone" } : { kind: "read" };
  const meta = (live.metadata ?? {}) as Meta;
  if (meta.uid !== entry.uid) return source === "live" ? { kind: "gone" } : { kind: "read" };
  if (meta.deletionTimestamp !== undefined) return { kind: "wait" };
  const policy = meta.annotations?.[HELM_RESOURCE_POLICY];
  const keep = typeof policy === "string" && policy.trim() === "keep";
  if (entry.ownership === "adopted") {
    if (!ctx.validated) return { kind: "refuse", reason: "the adopted object's record does not match the graph" };
    return ctx.policy === "adopt-and-delete" && !keep ? { kind: "delete" } : { kind: "release" };
  }
  if (!carriesOwnerLabel(live, ctx.owner))
    return { kind: "refuse", reason: "the live object does not carry this instance's identity (kro.run/instance-id)" };
  if (!ctx.validated) {
    const key = meta.annotations?.[ANNOTATIONS.creationKey];
    if (ctx.creationKey === undefined || key !== ctx.creationKey)
      return {
        kind: "refuse",
        reason: "the graph could not have produced this entry and the object lacks this instance's creation key",
      };
  }
  return keep ? { kind: "release" } : { kind: "delete" };
}
