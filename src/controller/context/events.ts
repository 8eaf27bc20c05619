/**
 * Kubernetes Events for what users watch with `kubectl describe`: condition transitions on RGDs
 * and instances (kro's InstanceConditionEvents, on by default here), and notable actions such
 * as adding status storage to a user's CRD. Best effort and off the reconcile path: Events are
 * sent in the background through their own client and never fail or slow a reconcile.
 */
import type { KubeObject } from "../../kube/index.js";
import type { ControllerContext } from "./controller-context.js";

/** What recording an Event needs: its own client, a logger for failures, and the clock. */
export type EventSink = Pick<ControllerContext, "eventClient" | "logger" | "now">;

interface ConditionLike {
  type?: string;
  status?: string;
  reason?: string;
}

export async function recordEvent(
  ctx: EventSink,
  object: KubeObject,
  reason: string,
  message: string,
  type: "Normal" | "Warning" = "Normal",
): Promise<void> {
  const now = ctx.now();
  const name = object.metadata?.name ?? "object";
  try {
    await ctx.eventClient.create({
      apiVersion: "v1",
      kind: "Event",
      // Cluster-scoped objects (RGDs) get their Events in "default", where kubectl describe looks.
      metadata: {
        name: `${name}.${Date.now().toString(16)}${Math.floor(Math.random() * 0xfff).toString(16)}`,
        namespace: object.metadata?.namespace ?? "default",
      },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name,
        namespace: object.metadata?.namespace,
        uid: object.metadata?.uid,
      },
      reason,
      message,
      type,
      source: { component: "kro-controller" },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    });
  } catch (error) {
    ctx.logger.warn({ err: error instanceof Error ? error.message : String(error), reason }, "could not record event");
  }
}

/**
 * One Event per condition (of `types`, or all) whose status changed: reason = condition type,
 * message `<old> -> <new>: <reason>` (`none` when new), Warning unless it became True.
 */
export function recordConditionChanges(
  ctx: EventSink,
  object: KubeObject,
  before: unknown,
  after: unknown,
  types?: readonly string[],
): void {
  const old = new Map(asConditions(before).map((c) => [c.type, c]));
  for (const next of asConditions(after)) {
    if (next.type === undefined || (types !== undefined && !types.includes(next.type))) continue;
    const previous = old.get(next.type);
    if (previous?.status === next.status) continue;
    void recordEvent(
      ctx,
      object,
      next.type,
      `${previous?.status ?? "none"} -> ${next.status ?? "Unknown"}: ${next.reason ?? ""}`,
      next.status === "True" ? "Normal" : "Warning",
    );
  }
}

function asConditions(status: unknown): ConditionLike[] {
  const conditions = (status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(conditions) ? (conditions as ConditionLike[]) : [];
}
