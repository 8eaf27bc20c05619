/**
 * Deleting an instance (kro-reference §6.12, by inventory): children go wave by wave in reverse
 * dependency order, each DELETE preconditioned on the UID we recorded; a wave must be gone
 * (child finalizers may hold it) before the next starts; only then is our finalizer removed.
 * Objects we did not create are never touched, and external references never.
 */
import { FINALIZER } from "../api/index.js";
import { DiscoveryError, isNotFound, type KubeObject } from "../kube/index.js";
import { buildInstanceStatus, deletionPlan, evaluateInstance, type InventoryEntry } from "../runtime/index.js";
import type { ControllerContext } from "./controller-context.js";
import type { ReconcileResult } from "./reconcile-loop.js";
import { readInventory } from "./inventory.js";
import { instanceKeyOf, type ServedGraph } from "./served-graphs.js";
import { refOf, writeStatus } from "./instance-writes.js";
import { runtimeOptionsFor } from "./runtime-options.js";

const WAVE_POLL_MS = 1000;

export async function deleteInstance(ctx: ControllerContext, served: ServedGraph, instance: KubeObject): Promise<ReconcileResult> {
  const finalizers = instance.metadata?.finalizers ?? [];
  if (!finalizers.includes(FINALIZER)) return {};
  const inventory = readInventory(instance);
  for (const wave of deletionPlan(served.graph, inventory)) {
    const present = (await Promise.all(wave.map(async (entry) => ((await liveWithUid(ctx, entry)) ? entry : undefined)))).filter((e) => e !== undefined);
    if (present.length === 0) continue;
    await Promise.all(present.map(async (entry) => {
      try {
        await ctx.client.delete(entry, { preconditions: { uid: entry.uid } });
      } catch (error) {
        if (!isNotFound(error) && (error as { status?: number }).status !== 409) throw error;
      }
    }));
    const evaluation = evaluateInstance(served.graph, instance, ctx.watches.lookup(new Map()), runtimeOptionsFor(ctx));
    await writeStatus(ctx, instance, buildInstanceStatus(served.graph, instance, evaluation, { deleting: true, now: ctx.now() }));
    // Child delete events wake us; the poll covers children whose kind we do not watch.
    return { requeueAfterMs: WAVE_POLL_MS };
  }
  ctx.watches.forget(instanceKeyOf(served.rgdName, instance));
  for (const entry of inventory) ctx.applyMemo.forget(entry.uid);
  await ctx.client.patch(refOf(instance), { metadata: { finalizers: finalizers.filter((f) => f !== FINALIZER), resourceVersion: instance.metadata?.resourceVersion } });
  return {};
}

/** True while the object we created (same UID) still exists, terminating or not. */
async function liveWithUid(ctx: ControllerContext, entry: InventoryEntry): Promise<boolean> {
  try {
    const live = await ctx.client.get(entry, { metadataOnly: true });
    return live.metadata?.uid === entry.uid;
  } catch (error) {
    // A kind the server no longer serves (its CRD was deleted) has no objects left to wait for.
    if (isNotFound(error) || error instanceof DiscoveryError) return false;
    throw error;
  }
}
