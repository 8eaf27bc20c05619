/**
 * One instance key's turn on a worker: the served graph looked up, the RGD's author policy
 * required in force (fail closed), a logger per reconcile, and the RGD's informers held for
 * the length of the pass. Also how each reconcile's outcome is counted and logged.
 */
import type { ControllerMetrics, Logger } from "../observability/index.js";
import { instanceFlowOf, parseInstanceKey, type ControllerContext } from "./context/index.js";
import { reconcileInstance } from "./instance/index.js";
import type { ReconcileOutcome, ReconcileResult } from "./loop/index.js";

/** How often an instance whose RGD's author policy is not in force looks again. */
export const POLICY_WAIT_MS = 1_000;

export type InstanceWork = (ctx: ControllerContext, key: string) => Promise<ReconcileResult>;

/** `base` holds the registry and the policy state; the reconcile itself runs on the context it is given (fenced with sharding). */
export function instanceWork(
  base: Pick<ControllerContext, "served" | "authorPolicies" | "watches" | "logger">,
): InstanceWork {
  let reconcileCount = 0;
  return async (ctx, key) => {
    const { rgdName, namespace, name } = parseInstanceKey(key);
    const entry = base.served.get(rgdName);
    // Not served (yet, or any more): the RGD's next successful reconcile re-enqueues every instance.
    if (entry === undefined) return {};
    // Fail closed: while the RGD's author policy is not in force, nothing is done for its instances.
    if (!base.authorPolicies.standing(rgdName).inForce) return { requeueAfterMs: POLICY_WAIT_MS };
    const log = base.logger.child({
      kind: entry.instance.kind,
      namespace,
      instance: name,
      reconcileId: (++reconcileCount).toString(36),
    });
    // The informers this reconcile uses are not released under it (RGD deleted or changed meanwhile).
    base.watches.begin(rgdName);
    try {
      return await reconcileInstance(ctx, entry, namespace, name, log);
    } finally {
      base.watches.end(rgdName);
    }
  };
}

/** Metrics and a log line per processed key. */
export function outcomeRecorder(
  logger: Logger,
  metrics: ControllerMetrics | undefined,
): (kind: string) => (key: string, outcome: ReconcileOutcome, durationMs: number) => void {
  return (kind) => (key, outcome, durationMs) => {
    metrics?.reconcileTotal.inc({ kind, result: outcome.kind });
    metrics?.reconcileDuration.observe({ kind }, durationMs / 1000);
    metrics?.workDuration.observe({ queue: kind }, durationMs / 1000);
    if (kind === "instance") metrics?.namespaceWork.inc({ namespace: instanceFlowOf(key)[0] }, durationMs / 1000);
    if (outcome.kind !== "success")
      logger.warn(
        {
          kind,
          key,
          err: errorText(outcome.error),
          ...(outcome.kind === "error" ? { retryInMs: outcome.retryInMs } : {}),
        },
        "reconcile failed",
      );
    else logger.debug({ kind, key, durationMs: Math.round(durationMs) }, "reconciled");
  };
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
