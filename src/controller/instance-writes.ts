/** Small writes and reads on an instance shared by reconcile and deletion. */
import { ANNOTATIONS, INSTANCE_CONDITIONS, RECONCILE_SUSPENDED } from "../api/index.js";
import { recordConditionChanges } from "./events.js";
import { isConflict, isNotFound, type KubeObject } from "../kube/index.js";
import type { KubeJson } from "../runtime/index.js";
import type { ControllerContext } from "./controller-context.js";
import { identityFor } from "./child-watches.js";
import { jsonEqual } from "./json-equal.js";

/**
 * Status is written only when it differs (numbers compared as JSON): no write when converged.
 * The informer's copy can lag our own last status write; on a conflict with an unchanged spec
 * (same generation) the status we computed still holds, so it is written on the fresh copy
 * instead of failing the reconcile and computing it all again.
 */
export async function writeStatus(ctx: ControllerContext, instance: KubeObject, status: KubeJson): Promise<void> {
  if (jsonEqual(status, instance.status)) return;
  try {
    await ctx.client.updateStatus({ ...instance, status });
  } catch (error) {
    if (!isConflict(error)) throw error;
    const fresh = await ctx.client.get(refOf(instance)).catch((e: unknown) => { if (isNotFound(e)) return undefined; throw e; });
    if (fresh === undefined || jsonEqual(status, fresh.status)) return;
    if (fresh.metadata?.generation !== instance.metadata?.generation) throw error;
    await ctx.client.updateStatus({ ...fresh, status });
  }
  // Only the root condition: one Event per readiness change keeps Events cheap at scale.
  recordConditionChanges(ctx, instance, instance.status, status, [INSTANCE_CONDITIONS.ready]);
}

export function isSuspended(instance: KubeObject): boolean {
  const value = instance.metadata?.annotations?.[ANNOTATIONS.reconcile]?.toLowerCase();
  return value === RECONCILE_SUSPENDED || value === "disabled";
}

export function refOf(object: KubeObject): { apiVersion: string; kind: string; name: string; namespace?: string } {
  return { ...identityFor(object) };
}

