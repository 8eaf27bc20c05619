/** Small writes and reads on an instance shared by reconcile and deletion. */
import { createHash } from "node:crypto";
import { ANNOTATIONS, INSTANCE_CONDITIONS, RECONCILE_SUSPENDED, STATUS_RECORD } from "../../api/index.js";
import { recordConditionChanges } from "../context/index.js";
import { isConflict, isNotFound, type KubeObject } from "../../kube/index.js";
import type { KubeJson } from "../../runtime/index.js";
import type { ControllerContext, EventSink } from "../context/index.js";
import { jsonEqual } from "../context/index.js";
import {
  applyDelta,
  emptyDelta,
  encodeStatusRecord,
  readInventory,
  recordsInStatus,
  statusRecordOf,
  type InventoryDelta,
} from "./inventory.js";
import { InstanceGoneError, isEmptyDelta, recordInAnnotation, recordOnFresh, refOf } from "./record.js";
import { carryRevisionRecord } from "./assigned-revision.js";

/** Writing status needs the client, the memo of what we last wrote, and the Event sink. */
export type StatusWriter = Pick<ControllerContext, "client" | "instanceMemory"> & EventSink;

/**
 * Status is written only when it differs (numbers compared as JSON): no write when converged.
 * The informer's copy can lag our own last status write (it is then not trusted to say "equal"),
 * and a status computed from that copy differs from what is stored only in its conditions'
 * lastTransitionTime (stamped against the stale copy). So while the spec is unchanged (same generation) a status equal, apart from those
 * stamps, to the last one we wrote is not written again, however far the copy lags; and on a
 * conflict the fresh copy decides: nothing to write when it already says the same, else the
 * reconcile runs again on fresh data. (Only the controller writes an instance's status; a status
 * someone else overwrote is corrected by the next status change or a restart.)
 */
export async function writeStatus(
  ctx: StatusWriter,
  instance: KubeObject,
  computed: KubeJson,
  delta: InventoryDelta = emptyDelta(),
): Promise<void> {
  const status = withRecord(instance, carryRevisionRecord(instance, computed), delta);
  const uid = instance.metadata?.uid ?? "";
  const memo = `${statusFingerprint(status)} ${String(instance.metadata?.generation ?? "")}`;
  const last = ctx.instanceMemory.statusWritten.get(uid);
  if (last === memo) return;
  // Equal to the copy, and nothing of ours written since (no memo, e.g. after a restart). With a
  // memo that differs, the copy may predate our own last write — a pass that wrote IN_PROGRESS
  // while a child was not cached yet, read back as ACTIVE from a copy the informer had not updated:
  // skipping then would leave IN_PROGRESS for good. The write goes out, preconditioned on the copy.
  if (last === undefined && jsonEqual(status, instance.status)) return;
  let written: KubeObject;
  try {
    written = await ctx.client.updateStatus({ ...instance, status });
  } catch (error) {
    if (!isConflict(error)) throw error;
    const fresh = await ctx.client.get(refOf(instance)).catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (fresh === undefined) {
      // Deleted while we wrote (the API server answers 409, "UID in precondition", for an object
      // deleted under the update): with children to record, the caller must remove them instead.
      if (!isEmptyDelta(delta)) throw new InstanceGoneError(instance, "status write", error);
      return;
    }
    await recordOnFresh(ctx, fresh, delta);
    // A newer spec arrived meanwhile: a status for the older one is no answer, however equal —
    // the stored Ready would stand for a generation nobody evaluated. The pass runs again.
    const newerSpec = fresh.metadata?.generation !== instance.metadata?.generation;
    if (newerSpec || statusFingerprint(withoutRecord(fresh.status)) !== statusFingerprint(withoutRecord(status))) {
      // What we wrote last is older than this fresh copy: the next pass may trust its copy again.
      ctx.instanceMemory.statusWritten.delete(uid);
      throw error;
    }
    ctx.instanceMemory.statusWritten.set(uid, memo);
    return;
  }
  // A CRD that does not keep the field (one an older release installed) dropped the record
  // silently: it moves to the annotation, on this very pass.
  const record = (status as Record<string, unknown>)[STATUS_RECORD.field];
  if (record !== undefined && statusRecordOf(written) !== record) {
    await recordInAnnotation(ctx, written, readInventory({ ...written, status }).entries);
    ctx.instanceMemory.statusWritten.delete(uid);
  } else ctx.instanceMemory.statusWritten.set(uid, memo);
  // Only the root condition: one Event per readiness change keeps Events cheap at scale.
  recordConditionChanges(ctx, instance, instance.status, status, [INSTANCE_CONDITIONS.ready]);
}

/**
 * The status to write, with the instance's record where it keeps it in status: this pass's delta
 * applied (the reconcile's record step), or carried over as it stands (every other status write,
 * which must not drop it — a PUT replaces the whole status).
 */
function withRecord(instance: KubeObject, status: KubeJson, delta: InventoryDelta): KubeJson {
  if (!recordsInStatus(instance)) return status;
  const current = statusRecordOf(instance);
  if (isEmptyDelta(delta)) return current === undefined ? status : { ...status, [STATUS_RECORD.field]: current };
  return { ...status, [STATUS_RECORD.field]: encodeStatusRecord(applyDelta(readInventory(instance), delta)) };
}

function withoutRecord(status: unknown): unknown {
  if (typeof status !== "object" || status === null) return status;
  const { [STATUS_RECORD.field]: _record, ...rest } = status as Record<string, unknown>;
  return rest;
}

/** The status without its conditions' transition stamps, hashed (the memo keeps 20 bytes per instance). */
export function statusFingerprint(status: unknown): string {
  const text = JSON.stringify(status ?? null, (key, value: unknown) =>
    key === "lastTransitionTime" ? undefined : value,
  );
  return createHash("sha1").update(text).digest("base64");
}

export function isSuspended(instance: KubeObject): boolean {
  const value = instance.metadata?.annotations?.[ANNOTATIONS.reconcile]?.toLowerCase();
  return value === RECONCILE_SUSPENDED || value === "disabled";
}
