/**
 * The rollout step of an RGD reconcile, only for an RGD with spec.rollout (docs/design/rollouts.md):
 * read every instance (a LIST: a sharded replica caches only its own shards'), plan with the pure
 * planner, and — after the reconcile has written the verdicts into the RGD's status — write each
 * move onto its instance and enqueue it. An RGD without a policy never gets here.
 */
import { FIELD_MANAGERS } from "../../api/index.js";
import { isConflict, isNotFound, type KubeObject } from "../../kube/index.js";
import type { ConditionInput } from "../../runtime/index.js";
import { instanceKeyOf, recordEvent, type ControllerContext, type ServedGraph } from "../context/index.js";
import {
  assignmentPatch,
  pinNotePatch,
  pinNotes,
  planRollout,
  rolloutControlOf,
  rolloutInstanceOf,
  rolloutStatusOf,
  type RolloutMove,
} from "../rollout/index.js";

/** A rollout still moving is planned again at least this often: instance events do not wake the RGD. */
export const ROLLOUT_POLL_MS = 10_000;

export interface RolloutOutcome {
  /** The RGD's status.rollout. */
  readonly status: Record<string, unknown>;
  readonly condition: ConditionInput;
  /** Written after the RGD's status, so a verdict is recorded before the moves it causes. */
  readonly moves: readonly { readonly move: RolloutMove; readonly object: KubeObject }[];
  /** Instances whose recorded pin problem changes (undefined: their pin is honoured now, or gone). */
  readonly pinNotes: readonly { readonly problem?: string; readonly object: KubeObject }[];
  readonly requeueAfterMs?: number;
  /** Revisions instances are assigned, run, move to or are pinned to: retention keeps them. */
  readonly inUse: ReadonlySet<number>;
}

export async function planRolloutStep(
  ctx: Pick<ControllerContext, "client" | "now">,
  rgd: KubeObject,
  served: ServedGraph,
): Promise<RolloutOutcome | undefined> {
  const policy = served.graph.rollout;
  if (policy === undefined || served.revisions === undefined) return undefined;
  const list = await ctx.client.list(served.instance.apiVersion, served.instance.kind);
  const objects = new Map(list.items.map((o) => [instanceKeyOf(served.rgdName, o), o]));
  const live = [...served.revisions.keys()];
  const now = Date.parse(ctx.now());
  const control = rolloutControlOf(rgd);
  const placement = policy.waves.some((w) => w.selection.kind === "clusters");
  const instances = [...objects].map(([key, o]) => rolloutInstanceOf(o, key, placement));
  const plan = planRollout({ policy, revisions: live, instances, control, now });
  if (plan === undefined) return undefined;
  const inUse = new Set<number>(plan.moves.map((m) => m.to));
  for (const i of instances) {
    for (const revision of [i.assigned, i.evaluated, Number(i.pin)])
      if (revision !== undefined && Number.isSafeInteger(revision)) inUse.add(revision);
  }
  const nameOf = (key: string) => {
    const metadata = objects.get(key)?.metadata;
    return {
      ...(metadata?.namespace === undefined ? {} : { namespace: metadata.namespace }),
      name: metadata?.name ?? "",
    };
  };
  const moving = plan.phase !== "Complete" && plan.phase !== "NoTarget";
  const untilNext = plan.nextCheckAt === undefined ? ROLLOUT_POLL_MS : Math.max(1, plan.nextCheckAt - now);
  return {
    status: rolloutStatusOf(plan, control, live, nameOf),
    condition: plan.condition,
    moves: plan.moves.flatMap((move) => {
      const object = objects.get(move.key);
      return object === undefined ? [] : [{ move, object }];
    }),
    pinNotes: pinNotes(plan, instances).flatMap(({ key, problem }) => {
      const object = objects.get(key);
      return object === undefined ? [] : [{ object, ...(problem === undefined ? {} : { problem }) }];
    }),
    ...(moving || plan.moves.length > 0 ? { requeueAfterMs: Math.min(ROLLOUT_POLL_MS, untilNext) } : {}),
    inUse,
  };
}

/**
 * Each move as a status merge patch preconditioned on the resourceVersion it was planned from: an
 * instance changed meanwhile (or gone) is skipped, and the next round plans it again — never a
 * move the plan did not count.
 */
export async function writeMoves(
  ctx: Pick<ControllerContext, "client" | "now" | "instanceQueue" | "eventClient" | "logger">,
  rgdName: string,
  outcome: RolloutOutcome,
): Promise<void> {
  const now = Date.parse(ctx.now());
  for (const { move, object } of outcome.moves) {
    if (await patchPlanned(ctx, object, assignmentPatch(move, now)))
      ctx.instanceQueue.add(instanceKeyOf(rgdName, object));
  }
  // The instance's author may read only the instance: its pin's verdict is written there, and
  // told once as an Event (kubectl describe) when it appears or changes.
  for (const { object, problem } of outcome.pinNotes) {
    if (!(await patchPlanned(ctx, object, pinNotePatch(problem))) || problem === undefined) continue;
    void recordEvent(ctx, object, "PinNotHonoured", problem, "Warning");
  }
}

/** A status merge patch of what was planned from `object`; false when it changed meanwhile or is gone. */
async function patchPlanned(
  ctx: Pick<ControllerContext, "client">,
  object: KubeObject,
  patch: Record<string, unknown>,
): Promise<boolean> {
  const ref = {
    apiVersion: object.apiVersion ?? "",
    kind: object.kind ?? "",
    name: object.metadata?.name ?? "",
    ...(object.metadata?.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
  };
  try {
    await ctx.client.patch(
      ref,
      { metadata: { resourceVersion: object.metadata?.resourceVersion }, ...patch },
      { subresource: "status", fieldManager: FIELD_MANAGERS.controller },
    );
    return true;
  } catch (error) {
    if (isConflict(error) || isNotFound(error)) return false;
    throw error;
  }
}
