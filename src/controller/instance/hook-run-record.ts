/**
 * The hook runs of the instance's generation that this pass saw complete, written on the instance
 * (annotation internal.kro.run/hook-runs; the decision is the runtime's: completedHookRuns). On the
 * instance rather than in memory, so a restarted controller does not run a finished hook again
 * after its Job was deleted (TTL, hook-delete-policy). The write's own event queues one more pass,
 * which lets a `hook-succeeded` run go.
 */
import { ANNOTATIONS } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { completedHookRuns } from "../../runtime/index.js";
import type { InstancePass } from "./pass.js";
import { patchInstance, type InstanceWriter } from "./record.js";

/** Writes the record when the pass completed hook runs it does not hold yet; returns the instance as written. */
export async function recordHookRuns(ctx: InstanceWriter, pass: InstancePass): Promise<KubeObject> {
  // A node whose write failed may look ready on what an earlier generation left.
  const nodes = pass.evaluation.nodes.filter((n) => pass.applyErrors[n.id] === undefined);
  if (completedHookRuns(pass.instance, nodes) === undefined) return pass.instance;
  const generation = pass.instance.metadata?.generation;
  return patchInstance(ctx, pass.instance, (current) => {
    // The spec changed meanwhile: these runs belong to a generation that is over.
    if (current.metadata?.generation !== generation) return undefined;
    const record = completedHookRuns(current, nodes);
    return record === undefined ? undefined : { metadata: { annotations: { [ANNOTATIONS.hookRuns]: record } } };
  });
}
