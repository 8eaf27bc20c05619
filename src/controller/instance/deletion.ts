/**
 * Deleting an instance (docs/reference/kro-reference.md §6.12): children go wave by wave in reverse
 * dependency order, found by the inventory *and* by owner identity (the creation key, so a child
 * created just before a crash is not left behind); each DELETE carries the recorded UID as a
 * precondition; a wave must be gone (child finalizers may hold it) before the next starts; only
 * then is our finalizer removed. Objects we did not create are never deleted, adopted ones are
 * released unless the user opted into their deletion, and external references are never touched.
 *
 * A held wave costs no requests while the cache shows its objects terminating; the instance is
 * woken by their delete events, with a backed-off requeue as the safety net.
 */
import { ANNOTATIONS, FINALIZER } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { buildInstanceStatus, deletionPlan } from "../../runtime/index.js";
import { evaluatePass } from "./evaluate-pass.js";
import type { InstanceContext } from "./instance-context.js";
import type { ReconcileResult } from "../loop/index.js";
import { applyDelta, readInventory, recordText, InventoryFormatError, type OwnedChild } from "./inventory.js";
import type { ServedGraph } from "../context/index.js";
import { writeStatus } from "./status-write.js";
import { adoptionPolicy } from "./apply-outcome.js";
import { ownerIdentity, recoverUnrecorded, reportRefused, validatedRemovalContext } from "./ownership-checks.js";
import { removeChildren } from "./child-removal.js";
import { patchInstance, InstanceGoneError } from "./record.js";
import { runtimeOptionsFor } from "./runtime-options.js";
import { watchClustersForDeletion } from "./cluster-targets.js";

const FIRST_WAIT_MS = 1_000;
const MAX_WAIT_MS = 60_000;

export async function deleteInstance(
  ctx: InstanceContext,
  served: ServedGraph,
  instance: KubeObject,
  key: string,
): Promise<ReconcileResult> {
  if (!(instance.metadata?.finalizers ?? []).includes(FINALIZER)) return {};
  const graph = served.graph;
  const owner = ownerIdentity(served, instance);
  // What the status shows while children go: the graph as it stands.
  const evaluateForStatus = () =>
    evaluatePass(ctx, { key, graph, instance, lookup: ctx.watches.lookup(new Map()), options: runtimeOptionsFor(ctx) });
  let inventory;
  try {
    inventory = readInventory(instance);
  } catch (error) {
    if (!(error instanceof InventoryFormatError)) throw error;
    // Without a readable record we cannot tell our children from anyone's: delete nothing, keep
    // the finalizer, and say what to do. (The creation key is in the same annotation.)
    await writeStatus(
      ctx,
      instance,
      buildInstanceStatus(graph, instance, await evaluateForStatus(), {
        deleting: true,
        now: ctx.now(),
        applyErrors: {
          inventory: `${error.message}; restore it (or remove the finalizer ${FINALIZER} to leave the children behind)`,
        },
      }),
    );
    return { requeueAfterMs: MAX_WAIT_MS };
  }
  // Children in other clusters are recovered from those clusters' watches: started here, since a
  // restarted controller may reach an instance's deletion before any pass watched them.
  const unreachable = await watchClustersForDeletion(ctx, graph, inventory);
  const recovered = recoverUnrecorded(ctx.watches.ownedBy(owner.uid), inventory);
  const entries = applyDelta(inventory, recovered);
  const full = { key: inventory.key, entries };
  const policy = adoptionPolicy(instance.metadata?.annotations?.[ANNOTATIONS.adopt], undefined);
  const removed = await removeChildren(
    ctx,
    deletionPlan(graph, entries) as OwnedChild[][],
    ctx.watches.lookup(new Map()),
    validatedRemovalContext(graph, owner, full, policy),
  );
  const errors: Record<string, string> = { ...removed.errors, ...Object.fromEntries(unreachable) };
  reportRefused(ctx, instance, removed.refused, errors, ctx.logger);

  if (removed.held || unreachable.size > 0) {
    const evaluation = await evaluateForStatus();
    await writeStatus(
      ctx,
      instance,
      buildInstanceStatus(graph, instance, evaluation, {
        deleting: true,
        now: ctx.now(),
        ...(Object.keys(errors).length === 0 ? {} : { applyErrors: errors }),
      }),
    );
    return { requeueAfterMs: nextWait(ctx, key) };
  }
  ctx.instanceMemory.forget(key, owner.uid);
  for (const entry of entries) ctx.applyMemo.forget(entry.uid);
  try {
    await patchInstance(ctx, instance, (current) => {
      // Someone recorded a child since we read the record (another replica): start over.
      if (recordText(current) !== recordText(instance)) {
        throw new Error("the inventory changed while the instance was being deleted; deleting again");
      }
      const finalizers = current.metadata?.finalizers ?? [];
      return finalizers.includes(FINALIZER)
        ? { metadata: { finalizers: finalizers.filter((f) => f !== FINALIZER) } }
        : undefined;
    });
  } catch (error) {
    if (!(error instanceof InstanceGoneError)) throw error;
  }
  return {};
}

/** 1 s, 2 s, 4 s … up to a minute per held instance: a stuck finalizer costs a bounded rate. */
function nextWait(ctx: InstanceContext, key: string): number {
  const attempt = ctx.instanceMemory.deletionWaits.get(key) ?? 0;
  ctx.instanceMemory.deletionWaits.set(key, attempt + 1);
  return Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** attempt);
}
