/**
 * An instance written while its RGD's author policy was not in force (deleted or edited, or just
 * restored and maybe not loaded yet by the API server) may have been admitted unchecked: nothing
 * is applied, adopted or read for it. The controller stamps it (ANNOTATIONS.uncheckedAdmission,
 * so the verdict survives a restart) and says so in its status; removing the stamp is a write
 * the restored policy judges, after which the instance is reconciled as usual.
 */
import { ANNOTATIONS } from "../../api/index.js";
import { isNotFound, type KubeObject } from "../../kube/index.js";
import { buildInstanceStatus, type InstanceEvaluation } from "../../runtime/index.js";
import type { InstanceContext } from "./instance-context.js";
import type { ServedGraph } from "../context/index.js";
import { refOf } from "./record.js";
import { writeStatus } from "./status-write.js";

/** How soon an instance whose writes cannot be judged yet (the policy is being restored) looks again. */
const JUDGE_RETRY_MS = 1_000;

/**
 * Judges the instance's writes not judged yet, once the policy watch has caught up with them
 * (author-policy/policy-barrier.ts): "wait" while the RGD's policy is not in force.
 */
export async function judgeWrites(ctx: InstanceContext, served: ServedGraph, key: string): Promise<"judged" | "wait"> {
  for (;;) {
    const ticket = ctx.authorPolicies.seenTicket(key);
    if (ticket === undefined) return "judged";
    await ctx.policySync.caughtUp(ticket, ctx.authorPolicies.newestSeen(key));
    if (ctx.authorPolicies.seenTicket(key) !== ticket) continue; // written again meanwhile: wait for that too
    if (!ctx.authorPolicies.standing(served.rgdName).inForce) return "wait";
    if (ctx.authorPolicies.takeSeen(key).some((write) => ctx.authorPolicies.suspect(served.rgdName, write)))
      ctx.authorPolicies.markUnchecked(key);
    return "judged";
  }
}

/**
 * Undefined when the instance may be reconciled; otherwise what the reconcile returns: held back
 * (stamped now or before; its status says why), or to be looked at again.
 */
export async function holdUnchecked(
  ctx: InstanceContext,
  served: ServedGraph,
  instance: KubeObject,
  key: string,
): Promise<{ requeueAfterMs?: number } | undefined> {
  if ((await judgeWrites(ctx, served, key)) === "wait") return { requeueAfterMs: JUDGE_RETRY_MS };
  let current = instance;
  const stamped = instance.metadata?.annotations?.[ANNOTATIONS.uncheckedAdmission];
  if (stamped === undefined) {
    if (!ctx.authorPolicies.isMarkedUnchecked(key)) return undefined;
    const reason = `written at ${ctx.now()} while the author policy of ResourceGraphDefinition ${served.rgdName} was not in force`;
    try {
      current = await ctx.client.patch(refOf(instance), {
        metadata: {
          resourceVersion: instance.metadata?.resourceVersion,
          annotations: { [ANNOTATIONS.uncheckedAdmission]: reason },
        },
      });
    } catch (error) {
      if (isNotFound(error)) return {};
      throw error;
    }
    ctx.authorPolicies.clearUnchecked(key);
    ctx.logger.warn(
      { rgd: served.rgdName, instance: key },
      "instance admitted while the author policy was not in force: held back",
    );
  }
  const message =
    `not acted on: this instance was ${current.metadata?.annotations?.[ANNOTATIONS.uncheckedAdmission] ?? "admitted unchecked"}; ` +
    `remove the annotation ${ANNOTATIONS.uncheckedAdmission} (kubectl annotate … ${ANNOTATIONS.uncheckedAdmission}-) to have it checked and reconciled`;
  // Nothing is evaluated: not even a read on its behalf may reach its status.
  const evaluation: InstanceEvaluation = {
    nodes: [],
    apply: [],
    pending: false,
    error: message,
    watches: [],
    externals: [],
  };
  await writeStatus(ctx, current, buildInstanceStatus(served.graph, current, evaluation, { now: ctx.now() }));
  return {};
}
