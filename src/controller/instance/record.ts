/**
 * Writes to the instance's own metadata — finalizer, labels, inventory — always with a
 * resourceVersion precondition. On a conflict (our copy was stale, or another writer got there
 * first) the instance is read again and the change is recomputed on the fresh copy: for the
 * inventory that means re-applying this reconcile's *delta* (what it saw created and gone), so two
 * writers never erase each other's records. A stale informer copy therefore costs a retry, never a
 * lost child.
 */
import { ANNOTATIONS, FINALIZER, LABELS, labelValue, STATUS_RECORD } from "../../api/index.js";
import { isConflict, isNotFound, type KubeObject } from "../../kube/index.js";
import { renderTimeToRecord } from "../../runtime/index.js";
import { keepsStatusRecord } from "../../schema/index.js";
import type { ControllerContext } from "../context/index.js";
import { identityFor } from "../watches/index.js";
import {
  applyDelta,
  encodeInventory,
  encodeKeyOnly,
  encodeStatusRecord,
  newCreationKey,
  readInventory,
  recordsInStatus,
  statusRecordOf,
  type Inventory,
  type InventoryDelta,
  type OwnedChild,
} from "./inventory.js";
import { instanceKeyOf, type ServedGraph } from "../context/index.js";

/** Metadata writes to the instance need only the client. */
export type InstanceWriter = Pick<ControllerContext, "client">;

const MAX_CONFLICT_RETRIES = 8;

export class InstanceGoneError extends Error {
  override readonly name = "InstanceGoneError";
  /** `during`: which write found it gone; `answer`: what the API server said. */
  constructor(instance: KubeObject, during: string, answer: unknown) {
    super(
      `instance ${instance.metadata?.namespace ?? ""}/${instance.metadata?.name ?? ""} is gone (${during}: ${answer instanceof Error ? answer.message : ""})`,
      { cause: answer },
    );
  }
}

/**
 * Patches the instance with `build(fresh)` (undefined: nothing to write), preconditioned on the
 * copy's resourceVersion, re-reading on conflict. Returns the instance as written (or as read).
 */
export async function patchInstance(
  ctx: InstanceWriter,
  instance: KubeObject,
  build: (current: KubeObject) => Record<string, unknown> | undefined,
): Promise<KubeObject> {
  let current = instance;
  for (let attempt = 0; ; attempt++) {
    const patch = build(current);
    if (patch === undefined) return current;
    const metadata = {
      ...((patch.metadata as Record<string, unknown> | undefined) ?? {}),
      resourceVersion: current.metadata?.resourceVersion,
    };
    try {
      return await ctx.client.patch(refOf(current), { ...patch, metadata });
    } catch (error) {
      if (isNotFound(error))
        throw new InstanceGoneError(
          current,
          `attempt ${attempt}, rv ${current.metadata?.resourceVersion ?? ""}`,
          error,
        );
      if (!isConflict(error) || attempt >= MAX_CONFLICT_RETRIES) throw error;
      current = await ctx.client.get(refOf(current));
    }
  }
}

/**
 * Finalizer, ownership labels and the creation key in one write, before any child is created
 * (the key must be on record before a child carries it). Costs nothing when all are in place.
 */
export async function ensureManaged(
  ctx: InstanceWriter & Pick<ControllerContext, "kroVersion" | "now" | "cacheScoping" | "ownWrites">,
  served: ServedGraph,
  instance: KubeObject,
  evaluationMark: (current: KubeObject) => string | undefined = () => undefined,
): Promise<{ instance: KubeObject; inventory: Inventory & { key: string }; confirmed: boolean; marked: boolean }> {
  const labels = {
    [LABELS.owned]: "true",
    [LABELS.kroVersion]: ctx.kroVersion,
    [LABELS.rgdId]: served.rgdUid,
    [LABELS.rgdName]: labelValue(served.rgdName),
    // With sharding: the instance's shard, so only its holder's informers select it (and a wrong
    // value a tenant wrote is put right here, in the write this pass makes anyway).
    ...(ctx.cacheScoping === undefined
      ? {}
      : { [LABELS.shard]: ctx.cacheScoping.scope.labelOf(instanceKeyOf(served.rgdName, instance)) }),
  };
  // The crash-loop guard's in-flight mark rides on this write (instance/evaluation-crash.ts).
  let mark: string | undefined;
  // Its watch event (a finalizer added queues the instance) would repeat this pass for nothing.
  const written = await ctx.ownWrites.write(instance, instanceKeyOf(served.rgdName, instance), () =>
    patchInstance(ctx, instance, (current) => {
      mark = evaluationMark(current);
      const metadata = current.metadata ?? {};
      const finalizers = metadata.finalizers ?? [];
      const hasLabels = Object.entries(labels).every(([k, v]) => metadata.labels?.[k] === v);
      const inventory = readInventory(current);
      // The instant `now` renders from for this generation, on record before any child is written.
      const renderTime = renderTimeToRecord(served.graph, current, ctx.now());
      if (
        finalizers.includes(FINALIZER) &&
        hasLabels &&
        inventory.key !== undefined &&
        renderTime === undefined &&
        mark === undefined
      )
        return undefined;
      const annotations = {
        ...(mark === undefined ? {} : { [ANNOTATIONS.evaluating]: mark }),
        ...(inventory.key === undefined ? { [ANNOTATIONS.inventory]: newRecord(served, inventory.entries) } : {}),
        ...(renderTime === undefined ? {} : { [ANNOTATIONS.renderTime]: renderTime }),
      };
      return {
        metadata: {
          finalizers: finalizers.includes(FINALIZER) ? finalizers : [...finalizers, FINALIZER],
          labels,
          ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
        },
      };
    }),
  );
  const inventory = readInventory(written);
  if (inventory.key === undefined) throw new Error("the instance's creation key was not recorded");
  // A copy the API server just returned is current; the informer's copy may not be.
  return {
    instance: written,
    inventory: { key: inventory.key, entries: inventory.entries },
    confirmed: written !== instance,
    marked: mark !== undefined && written !== instance,
  };
}

/**
 * The instance as the API server has it now (undefined: gone). A reconcile calls this before its
 * first create when nothing in it has confirmed its copy yet: the informer may still show an
 * instance that was deleted — even one whose deletion already finished — and a child created
 * for it then would be created for nobody.
 */
export async function readCurrent(ctx: InstanceWriter, instance: KubeObject): Promise<KubeObject | undefined> {
  try {
    return await ctx.client.get(refOf(instance));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * The first record of an instance: the key alone when its CRD keeps the entries in status (a record
 * already there is read as it is), else key and entries in the annotation (and a bare list of the
 * first layout stays there).
 */
function newRecord(served: ServedGraph, entries: readonly OwnedChild[]): string {
  const inStatus = served.graph.dialect === "cel" && keepsStatusRecord(served.graph.crd) && entries.length === 0;
  return inStatus ? encodeKeyOnly(newCreationKey()) : encodeInventory({ key: newCreationKey(), entries });
}

export const isEmptyDelta = (delta: InventoryDelta): boolean =>
  delta.recorded.length === 0 && delta.removedUids.length === 0;

/**
 * Records a reconcile's delta in the annotation; no write when the record already says exactly
 * that, nor when the record lives in status (the status write carries it: status-write.ts).
 */
export async function recordDelta(
  ctx: InstanceWriter,
  instance: KubeObject,
  delta: InventoryDelta,
): Promise<KubeObject> {
  if (isEmptyDelta(delta) || recordsInStatus(instance)) return instance;
  return patchInstance(ctx, instance, (current) => {
    const inventory = readInventory(current);
    const key = inventory.key ?? newCreationKey();
    const encoded = encodeInventory({ key, entries: applyDelta(inventory, delta) });
    if (current.metadata?.annotations?.[ANNOTATIONS.inventory] === encoded) return undefined;
    return { metadata: { annotations: { [ANNOTATIONS.inventory]: encoded } } };
  });
}

/**
 * A status write lost a race: the delta is written onto the fresh copy's record all the same
 * (status or annotation, wherever that copy keeps it), so two writers never erase each other's
 * records; the rest of the status is the next pass's to decide.
 */
export async function recordOnFresh(ctx: InstanceWriter, fresh: KubeObject, delta: InventoryDelta): Promise<void> {
  if (isEmptyDelta(delta)) return;
  if (!recordsInStatus(fresh)) {
    await recordDelta(ctx, fresh, delta);
    return;
  }
  let current = fresh;
  for (let attempt = 0; ; attempt++) {
    const record = encodeStatusRecord(applyDelta(readInventory(current), delta));
    if (statusRecordOf(current) === record) return;
    try {
      await ctx.client.updateStatus({
        ...current,
        status: { ...(current.status as Record<string, unknown> | undefined), [STATUS_RECORD.field]: record },
      });
      return;
    } catch (error) {
      // Gone with children to record: the caller removes them (reconcile.ts, reportStatus).
      if (isNotFound(error)) throw new InstanceGoneError(current, "record write", error);
      if (!isConflict(error) || attempt >= MAX_CONFLICT_RETRIES) throw error;
      current = await ctx.client.get(refOf(current));
      if (!recordsInStatus(current)) return recordOnFresh(ctx, current, delta);
    }
  }
}

/**
 * The API server dropped the status record (a CRD without the field: installed by an older
 * release, or the author's own): the entries go into the annotation, where they are kept from now on.
 */
export async function recordInAnnotation(
  ctx: InstanceWriter,
  instance: KubeObject,
  entries: readonly OwnedChild[],
): Promise<KubeObject> {
  return patchInstance(ctx, instance, (current) => {
    const inventory = readInventory(current);
    const kept = new Set(inventory.entries.map((e) => e.uid));
    const key = inventory.key ?? newCreationKey();
    return {
      metadata: {
        annotations: {
          [ANNOTATIONS.inventory]: encodeInventory({
            key,
            entries: [...inventory.entries, ...entries.filter((e) => !kept.has(e.uid))],
          }),
        },
      },
    };
  });
}

export function refOf(object: KubeObject): { apiVersion: string; kind: string; name: string; namespace?: string } {
  return { ...identityFor(object) };
}
