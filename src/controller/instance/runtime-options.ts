/**
 * The runtime options of an instance evaluation pass in the controller: kro's limits plus the
 * wall-clock deadline (the runtime keeps no time; the controller lends it a monotonic clock).
 */
import { performance } from "node:perf_hooks";
import type { RuntimeOptions } from "../../runtime/index.js";
import type { ControllerContext } from "../context/index.js";

/** One pass over a sane graph takes well under 10 ms; 2 s only stops the hostile or the broken. */
export const DEFAULT_EVALUATION_TIMEOUT_MS = 2000;

export function runtimeOptionsFor(ctx: Pick<ControllerContext, "kroVersion" | "options" | "served">): RuntimeOptions {
  return {
    kroVersion: ctx.kroVersion,
    // A child that is another RGD's instance waits for its Ready condition (a parent never lies).
    awaitsReady: (apiVersion, kind) => ctx.served.forKind(apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "", kind)?.instance.apiVersion === apiVersion,
    maxCollectionSize: ctx.options.maxCollectionSize,
    // 0 turns the deadline off (a debugging aid, not a production setting).
    ...(ctx.options.evaluationTimeoutMs > 0 ? { passDeadline: { now: () => performance.now(), budgetMs: ctx.options.evaluationTimeoutMs } } : {}),
  };
}
