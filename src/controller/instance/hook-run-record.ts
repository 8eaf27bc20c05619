/**
 * The hook runs of the instance's generation that have finished, written on the instance
 * (annotation internal.kro.run/hook-runs; what it means is the runtime's: hook-runs.ts). On the
 * instance rather than in memory, so a restarted controller does not run a finished hook again
 * after its Job was deleted (ttlSecondsAfterFinished, hook-delete-policy). Two ways a run finishes:
 *
 * - its node is ready after the pass (Job complete, Pod succeeded, other kinds on existence);
 * - it is a Job or Pod we created (the inventory has it) that is gone: Helm's wait ends on the
 *   Deleted event as on completion, and a TTL of 0 deletes a Job before our cache may show it
 *   complete. Absence is asked of the API server, never judged from a cache that may lag behind
 *   our own create.
 *
 * Runs seen finished are recorded before the pass prunes, so the same pass lets a `hook-succeeded`
 * run go (the instance's watch does not queue a pass for a change of its annotations).
 */
import { ANNOTATIONS } from "../../api/index.js";
import { isNotFound, type KubeObject } from "../../kube/index.js";
import {
  completedHookObjects,
  hookRunRecord,
  identityOf,
  runToCompletionHooks,
  type KubeJson,
  type NodeEvaluation,
  type ObjectIdentity,
} from "../../runtime/index.js";
import { childKey, type OwnedChild } from "./inventory.js";
import type { InstancePass } from "./pass.js";
import { patchInstance, type InstanceWriter } from "./record.js";

/**
 * Pure: Jobs and Pods of hook runs that this instance created (its inventory holds them) and that
 * the pass's view of the cluster does not show: perhaps deleted since, to be confirmed with a read.
 */
export function vanishedRunCandidates(
  nodes: readonly Pick<NodeEvaluation, "excluded" | "desired">[],
  inventory: readonly OwnedChild[],
  seen: (identity: ObjectIdentity) => boolean,
): { object: KubeJson; identity: ObjectIdentity }[] {
  const ours = new Set(inventory.filter((e) => e.ownership === "created").map(childKey));
  return runToCompletionHooks(nodes).flatMap((object) => {
    const identity = identityOf(object);
    if (identity === undefined || identity.cluster !== undefined) return [];
    return ours.has(childKey(identity)) && !seen(identity) ? [{ object, identity }] : [];
  });
}

/**
 * Before anything is applied: runs we created that are gone now count as finished, so the apply
 * does not create them again. Returns the instance as written (or unchanged).
 */
export async function recordVanishedRuns(ctx: InstanceWriter, pass: InstancePass): Promise<KubeObject> {
  const candidates = vanishedRunCandidates(
    pass.evaluation.nodes,
    pass.inventory.entries,
    (identity) => pass.lookup.get(identity) !== undefined,
  );
  const gone: KubeJson[] = [];
  for (const { object, identity } of candidates) {
    try {
      await ctx.client.get(identity);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      gone.push(object);
    }
  }
  return writeRecord(ctx, pass.instance, gone);
}

/** After the pass: the hook runs of ready nodes (a node whose write failed may look ready on an older object). */
export async function recordCompletedRuns(ctx: InstanceWriter, pass: InstancePass): Promise<KubeObject> {
  const nodes = pass.evaluation.nodes.filter((n) => pass.applyErrors[n.id] === undefined);
  return writeRecord(ctx, pass.instance, completedHookObjects(nodes));
}

async function writeRecord(ctx: InstanceWriter, instance: KubeObject, runs: readonly KubeJson[]): Promise<KubeObject> {
  if (hookRunRecord(instance, runs) === undefined) return instance;
  const generation = instance.metadata?.generation;
  return patchInstance(ctx, instance, (current) => {
    // The spec changed meanwhile: these runs belong to a generation that is over.
    if (current.metadata?.generation !== generation) return undefined;
    const record = hookRunRecord(current, runs);
    return record === undefined ? undefined : { metadata: { annotations: { [ANNOTATIONS.hookRuns]: record } } };
  });
}
