/**
 * Removes recorded children wave by wave (instance deletion and prune share it): the executor of
 * removal-plan.ts. A DELETE always carries the recorded UID as a precondition; an object already
 * terminating is never sent a second DELETE; the cache answers first and a live read is made only
 * when the cache cannot tell, so deleting a thousand instances costs about one request per child.
 */
import { LABELS, ANNOTATIONS, FIELD_MANAGERS } from "../../api/index.js";
import { DiscoveryError, isConflict, isNotFound, type KubeObject } from "../../kube/index.js";
import type { KubeJson, ObservedLookup } from "../../runtime/index.js";
import type { ControllerContext } from "../context/index.js";
import type { Logger } from "../../observability/index.js";
import { describeIdentity, type InventoryDelta, type OwnedChild } from "./inventory.js";
import { deleteChild, patchChild, readChild } from "./child-port.js";
import { decideRemoval, type RemovalAction, type RemovalContext } from "./removal-plan.js";
import type { AdoptionPolicy } from "./apply-outcome.js";
import { WriteRefused } from "./write-gate.js";
import { adoptionRecordOf, releaseManager } from "./adoption-record.js";

/** Removing children needs the client and the apply memo (forgotten for what is gone). */
export type ChildWriter = Pick<ControllerContext, "client" | "applyMemo" | "clusters">;

export interface RemovalOutcome {
  /** Children that are gone (or were never provably ours): their records can go. */
  readonly done: OwnedChild[];
  /** Records dropped without touching the object, with the reason. */
  readonly refused: { entry: OwnedChild; reason: string }[];
  /** A wave is still terminating (finalizers) or failed: later waves were not started. */
  readonly held: boolean;
  readonly errors: Record<string, string>;
}

export async function removeChildren(
  ctx: ChildWriter,
  waves: readonly (readonly OwnedChild[])[],
  cache: ObservedLookup,
  context: (entry: OwnedChild) => RemovalContext,
): Promise<RemovalOutcome> {
  const outcome: RemovalOutcome = { done: [], refused: [], held: false, errors: {} };
  for (const wave of waves) {
    const results = await Promise.all(wave.map(async (entry) => removeOne(ctx, entry, cache, context(entry))));
    wave.forEach((entry, i) => {
      const result = results[i] as Result;
      if (result.kind === "done") outcome.done.push(entry);
      else if (result.kind === "refused") {
        outcome.refused.push({ entry, reason: result.reason });
        outcome.done.push(entry);
      } else if (result.kind === "error") outcome.errors[entry.nodeId] = result.message;
    });
    if (results.some((r) => r.kind === "waiting" || r.kind === "error")) return { ...outcome, held: true };
  }
  return outcome;
}

type Result =
  { kind: "done" } | { kind: "waiting" } | { kind: "refused"; reason: string } | { kind: "error"; message: string };

async function removeOne(
  ctx: ChildWriter,
  entry: OwnedChild,
  cache: ObservedLookup,
  context: RemovalContext,
): Promise<Result> {
  try {
    let live = cache.get(entry);
    let action: RemovalAction = decideRemoval(entry, live, "cache", context);
    if (action.kind === "read") {
      live = await readLive(ctx, entry);
      action = decideRemoval(entry, live, "live", context);
    }
    switch (action.kind) {
      case "gone":
        return { kind: "done" };
      case "wait":
        return { kind: "waiting" };
      case "refuse":
        return { kind: "refused", reason: action.reason };
      case "release":
        await releaseChild(ctx, entry);
        return { kind: "done" };
      case "delete":
        return await deleteOwnedChild(ctx, entry, { live, adoption: context.policy });
      case "read":
        return { kind: "waiting" };
    }
  } catch (error) {
    return {
      kind: "error",
      message: `remove ${describeIdentity(entry)}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

async function readLive(ctx: ChildWriter, entry: OwnedChild): Promise<KubeJson | undefined> {
  try {
    return await readChild(ctx, entry, { metadataOnly: true });
  } catch (error) {
    // A kind the server no longer serves (its CRD was deleted) has no objects left to wait for.
    if (isNotFound(error) || error instanceof DiscoveryError) return undefined;
    throw error;
  }
}

/**
 * The instance vanished while this pass created children (see reconcile.ts, recordOwnership):
 * nobody will reconcile it again, so what this pass created is deleted now.
 */
export async function deleteChildrenOfGone(ctx: ChildWriter, delta: InventoryDelta, log: Logger): Promise<void> {
  const created = delta.recorded.filter((e) => e.ownership === "created");
  await Promise.all(
    created.map(async (entry) => {
      const live = await readLive(ctx, entry);
      if (live === undefined) return;
      // A child kept by its retention mark stays (the gate refuses its delete).
      await deleteOwnedChild(ctx, entry, { live, adoption: "never" }).catch((error: unknown) => {
        if (!(error instanceof WriteRefused)) throw error;
      });
    }),
  );
  log.warn(
    { removed: created.map((e) => `${e.kind}/${e.name}`) },
    "the instance was deleted while its children were being created; removed them",
  );
}

/** DELETE preconditioned on the recorded UID: "done" when gone (or replaced), "waiting" while finalizers run. */
export async function deleteOwnedChild(
  ctx: ChildWriter,
  entry: OwnedChild,
  decidedOn: { readonly live: KubeJson | undefined; readonly adoption: AdoptionPolicy },
): Promise<{ kind: "done" } | { kind: "waiting" }> {
  try {
    const answer = await deleteChild(ctx, entry, decidedOn);
    ctx.applyMemo.forget(entry.uid);
    // The object itself comes back while its finalizers run; a Status means it is gone.
    return answer.kind !== "Status" && answer.metadata?.deletionTimestamp !== undefined
      ? { kind: "waiting" }
      : { kind: "done" };
  } catch (error) {
    // 404: already gone; 409: the UID changed, so the object there now is not the one we made.
    if (isNotFound(error) || isConflict(error) || error instanceof DiscoveryError) return { kind: "done" };
    throw error;
  }
}

/**
 * Releases an adopted object: it stays exactly as it is, but no longer carries our labels or
 * annotations, and our field manager gives up its fields (they become unowned, values kept), so a
 * later apply by its next owner meets no conflict from us. A label our apply overwrote when it
 * adopted the object gets its former value back, written as the manager that had written it
 * (adoption-record.ts): Helm takes back only objects labelled `managed-by: Helm`.
 */
async function releaseChild(ctx: ChildWriter, entry: OwnedChild): Promise<void> {
  let live: KubeObject;
  try {
    live = await readChild(ctx, entry);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  if (live.metadata?.uid !== entry.uid) return;
  const patch = releasePatch(live);
  if (patch === undefined) return;
  try {
    await patchChild(ctx, entry, patch, releaseManager(live));
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  ctx.applyMemo.forget(entry.uid);
}

/** The applyset manager applies children; the controller's wrote the adoption record. */
const OUR_MANAGERS: ReadonlySet<string> = new Set([FIELD_MANAGERS.applyset, FIELD_MANAGERS.controller]);

/** The merge patch that releases `live` (undefined: nothing of ours left on it). Pure. */
export function releasePatch(live: KubeJson): Record<string, unknown> | undefined {
  const metadata = (live.metadata ?? {}) as {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: { manager?: string }[];
    resourceVersion?: string;
    uid?: string;
  };
  const ourLabels = Object.keys(metadata.labels ?? {}).filter(
    (k) => k.startsWith("kro.run/") || (k === LABELS.managedBy && metadata.labels?.[k] === "kro"),
  );
  // What the adoption overwrote comes back, where the label still holds our value (or none).
  const restored = Object.entries(adoptionRecordOf(live)?.labels ?? {}).filter(
    ([k]) => metadata.labels?.[k] === undefined || ourLabels.includes(k),
  );
  const labels: Record<string, string | null> = {
    ...Object.fromEntries(ourLabels.map((k) => [k, null])),
    ...Object.fromEntries(restored),
  };
  const ourAnnotations = Object.keys(metadata.annotations ?? {}).filter(
    (k) =>
      k === ANNOTATIONS.applyOrder ||
      k === ANNOTATIONS.creationKey ||
      k === ANNOTATIONS.cluster ||
      k === ANNOTATIONS.adoptedLabels,
  );
  const managedFields = metadata.managedFields ?? [];
  const kept = managedFields.filter((f) => !OUR_MANAGERS.has(f.manager ?? ""));
  if (Object.keys(labels).length === 0 && ourAnnotations.length === 0 && kept.length === managedFields.length)
    return undefined;
  return {
    metadata: {
      resourceVersion: metadata.resourceVersion,
      ...(Object.keys(labels).length === 0 ? {} : { labels }),
      ...(ourAnnotations.length === 0 ? {} : { annotations: Object.fromEntries(ourAnnotations.map((k) => [k, null])) }),
      // An empty list would mean "leave as is"; [{}] is the API's way of clearing them all.
      ...(kept.length === managedFields.length ? {} : { managedFields: kept.length === 0 ? [{}] : kept }),
    },
  };
}
