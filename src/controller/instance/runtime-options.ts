/**
 * The runtime options of an instance evaluation pass in the controller: kro's limits plus the
 * deadline (the runtime keeps no time; the controller lends it a clock of this thread's work, so a
 * pass starved by other processes on a busy node is not cut short).
 */
import { LABELS } from "../../api/index.js";
import type { RuntimeOptions } from "../../runtime/index.js";
import { workClock } from "../clock/index.js";
import type { ControllerContext } from "../context/index.js";

/** One pass over a sane graph takes well under 10 ms of work; 2 s only stops the hostile or the broken. */
export const DEFAULT_EVALUATION_TIMEOUT_MS = 2000;

/** Passes run on the main thread: their deadlines count its work. */
const mainThreadWork = workClock();

function shardLabels(
  ctx: Pick<ControllerContext, "served">,
  shard: string,
): NonNullable<RuntimeOptions["childLabels"]> {
  const labels = { [LABELS.shard]: shard };
  return (apiVersion, kind) => (isServedKind(ctx, apiVersion, kind) ? undefined : labels);
}

/** A kind some served RGD reconciles as instances. */
export function isServedKind(ctx: Pick<ControllerContext, "served">, apiVersion: string, kind: string): boolean {
  return (
    ctx.served.forKind(apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "", kind)?.instance.apiVersion ===
    apiVersion
  );
}

export function runtimeOptionsFor(
  ctx: Pick<ControllerContext, "kroVersion" | "options" | "served" | "cacheScoping">,
  instanceKey?: string,
): RuntimeOptions {
  return {
    kroVersion: ctx.kroVersion,
    // With sharding every child carries its instance's shard: the holder's child informers select
    // it. Not a child that is another RGD's instance: that one carries its own shard (record.ts).
    ...(ctx.cacheScoping === undefined || instanceKey === undefined
      ? {}
      : { childLabels: shardLabels(ctx, ctx.cacheScoping.scope.labelOf(instanceKey)) }),
    // A child that is another RGD's instance waits for its Ready condition (a parent never lies).
    awaitsReady: (apiVersion, kind) => isServedKind(ctx, apiVersion, kind),
    maxCollectionSize: ctx.options.maxCollectionSize,
    // 0 turns the deadline off (a debugging aid, not a production setting).
    ...(ctx.options.evaluationTimeoutMs > 0
      ? { passDeadline: { now: mainThreadWork, budgetMs: ctx.options.evaluationTimeoutMs } }
      : {}),
  };
}
