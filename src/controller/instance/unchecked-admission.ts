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
import type { ControllerContext, ServedGraph } from "../context/index.js";
import { refOf, writeStatus } from "./status-write.js";

/** True when the instance is held back (stamped now or before); its status says why. */
export async function holdUnchecked(ctx: ControllerContext, served: ServedGraph, instance: KubeObject, key: string): Promise<boolean> {
  let current = instance;
  const stamped = instance.metadata?.annotations?.[ANNOTATIONS.uncheckedAdmission];
  if (stamped === undefined) {
    if (!ctx.authorPolicies.isMarkedUnchecked(key)) return false;
    const reason = `written at ${ctx.now()} while the author policy of ResourceGraphDefinition ${served.rgdName} was not in force`;
    try {
      current = await ctx.client.patch(refOf(instance), { metadata: { resourceVersion: instance.metadata?.resourceVersion, annotations: { [ANNOTATIONS.uncheckedAdmission]: reason } } });
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
    ctx.authorPolicies.clearUnchecked(key);
    ctx.logger.warn({ rgd: served.rgdName, instance: key }, "instance admitted while the author policy was not in force: held back");
  }
  const message = `not acted on: this instance was ${current.metadata?.annotations?.[ANNOTATIONS.uncheckedAdmission] ?? "admitted unchecked"}; `
    + `remove the annotation ${ANNOTATIONS.uncheckedAdmission} (kubectl annotate … ${ANNOTATIONS.uncheckedAdmission}-) to have it checked and reconciled`;
  // Nothing is evaluated: not even a read on its behalf may reach its status.
  const evaluation: InstanceEvaluation = { nodes: [], apply: [], pending: false, error: message, watches: [], externals: [] };
  await writeStatus(ctx, current, buildInstanceStatus(served.graph, current, evaluation, { now: ctx.now() }));
  return true;
}
