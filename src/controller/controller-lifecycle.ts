/**
 * The controller's life as a small state machine: what happens when its RGD watch has synced
 * (or could not), when this replica becomes the RGD leader, when the webhook's CA rotates, and
 * in which order it stops. `stepLifecycle` is pure; startController performs the actions.
 *
 *   starting ──synced──▶ running ──stop──▶ stopped
 *       │   └──sync failed──▶ failed ──stop──▶ stopped
 *       └──stop──▶ stopped
 *
 * Leadership gained while starting is remembered and answered once synced: the new leader goes
 * over every RGD (before that, the RGD informer's first list queues them all anyway).
 */
export type ControllerPhase = "starting" | "running" | "failed" | "stopped";

export interface LifecycleState {
  readonly phase: ControllerPhase;
  /** Leadership was gained before the RGD watch had synced: resync once it has. */
  readonly resyncWhenSynced: boolean;
}

export type LifecycleEvent =
  | { readonly type: "synced" }
  | { readonly type: "sync-failed"; readonly error: string }
  | { readonly type: "became-leader" }
  | { readonly type: "ca-rotated" }
  | { readonly type: "stop" };

/**
 * The stop order matters: nothing new is taken (timers, queues), the work in flight finishes
 * (workers), then what the work used is released (watches, clusters, migrations, informers, the
 * render pool) — and the conversion webhook last, so conversions are answered for as long as
 * anything here may need them.
 */
export const STOP_ORDER = [
  "stop-timers",
  "shut-queues",
  "await-workers",
  "stop-watches",
  "stop-clusters",
  "stop-migrations",
  "stop-informers",
  "stop-render-pool",
  "close-webhook",
] as const;
export type StopStep = (typeof STOP_ORDER)[number];

export type LifecycleAction =
  | { readonly type: "resync-rgds" }
  | { readonly type: "report-start-failure"; readonly error: string }
  | { readonly type: StopStep };

export const initialLifecycle: LifecycleState = { phase: "starting", resyncWhenSynced: false };

export function stepLifecycle(
  state: LifecycleState,
  event: LifecycleEvent,
): { readonly state: LifecycleState; readonly actions: readonly LifecycleAction[] } {
  if (state.phase === "stopped") return { state, actions: [] };
  switch (event.type) {
    case "stop":
      return { state: { phase: "stopped", resyncWhenSynced: false }, actions: STOP_ORDER.map((type) => ({ type })) };
    case "synced":
      if (state.phase !== "starting") return { state, actions: [] };
      return {
        state: { phase: "running", resyncWhenSynced: false },
        actions: state.resyncWhenSynced ? [{ type: "resync-rgds" }] : [],
      };
    case "sync-failed":
      if (state.phase !== "starting") return { state, actions: [] };
      return {
        state: { phase: "failed", resyncWhenSynced: false },
        actions: [{ type: "report-start-failure", error: event.error }],
      };
    case "became-leader":
      if (state.phase === "starting") return { state: { ...state, resyncWhenSynced: true }, actions: [] };
      return { state, actions: state.phase === "running" ? [{ type: "resync-rgds" }] : [] };
    case "ca-rotated":
      // A new CA must reach every CRD's caBundle: the RGD reconcile installs it.
      return { state, actions: state.phase === "running" ? [{ type: "resync-rgds" }] : [] };
  }
}

/** Whether /healthz should look at the workers and informers: not once stopping (they are meant to end). */
export function healthMatters(state: LifecycleState): boolean {
  return state.phase !== "stopped";
}
