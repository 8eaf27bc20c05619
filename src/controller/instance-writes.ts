/** Small writes and reads on an instance shared by reconcile and deletion. */
import { ANNOTATIONS, INSTANCE_CONDITIONS, RECONCILE_SUSPENDED } from "../api/index.js";
import { recordConditionChanges } from "./events.js";
import type { KubeObject } from "../kube/index.js";
import type { KubeJson } from "../runtime/index.js";
import type { ControllerContext } from "./controller-context.js";
import { identityFor } from "./child-watches.js";
import { jsonEqual } from "./json-equal.js";

/** Status is written only when it differs (numbers compared as JSON): no write when converged. */
export async function writeStatus(ctx: ControllerContext, instance: KubeObject, status: KubeJson): Promise<void> {
  if (jsonEqual(status, instance.status)) return;
  await ctx.client.updateStatus({ ...instance, status });
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

