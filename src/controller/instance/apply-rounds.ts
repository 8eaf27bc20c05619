/**
 * Plan and apply, round after round (docs/reference/kro-reference.md §6.6–§6.8, event-driven): each
 * round plans the writes the current evaluation asks for (pure: apply-plan.ts), applies them at
 * once, reads what each answer means (apply-outcome.ts), and evaluates again with the responses as
 * observed state, so a chain of dependents converges in as many round-trips as it has levels. A
 * guarded write that is refused is settled by a live read: ours after all, adopted (opt-in), or
 * left alone with a condition.
 */
import { isNotFound, isServerUnavailable } from "../../kube/index.js";
import { clusterOf, identityKey, type InstanceEvaluation, type KubeJson } from "../../runtime/index.js";
import type { Logger } from "../../observability/index.js";
import { jsonEqual, type ControllerContext } from "../context/index.js";
import { nodeIdOf, planApplies, withUid, type ApplyStep } from "./apply-plan.js";
import { judgeExisting, readApplyOutcome } from "./apply-outcome.js";
import {
  describeIdentity,
  emptyDelta,
  mergeDeltas,
  readInventory,
  type InventoryDelta,
  type OwnedChild,
} from "./inventory.js";
import type { InstancePass } from "./pass.js";
import { readCurrent } from "./record.js";
import { applyChild, patchChild, readChild } from "./child-port.js";
import { adoptionRecordPatch } from "./adoption-record.js";

/** Enough rounds for any realistic graph depth; each round applies at least one new object. */
const MAX_APPLY_ROUNDS = 64;

/** What applying needs: the client (applies, live reads, discovery) and the apply memo. */
export type Applier = Pick<ControllerContext, "client" | "applyMemo" | "clusters" | "ownWrites" | "accessReviews">;

/**
 * Runs the rounds until nothing is left to write, a write fails, or the graph cannot be
 * evaluated. Returns "gone" when the instance turned out to be deleted before its first create.
 * `reevaluate` evaluates the graph again from `pass.instance` into `pass.evaluation` — through the
 * read gate, so a read first named in a later round (by another child's answer) is judged before
 * any child made from it is written.
 */
export async function applyRounds(
  ctx: Applier,
  pass: InstancePass,
  watchErrors: ReadonlyMap<string, string>,
  reevaluate: () => Promise<void>,
  log: Logger,
): Promise<"done" | "gone"> {
  for (let round = 0; round < MAX_APPLY_ROUNDS && pass.evaluation.error === undefined; round++) {
    const evaluation = pass.evaluation;
    const steps = planRound(ctx, pass, evaluation, watchErrors);
    if (steps.length === 0) break;
    if (!pass.confirmed && steps.some((step) => step.mode === "create")) {
      // Before the first create, make sure the instance still exists: the cache may be behind.
      if (!(await confirmInstance(ctx, pass))) return "gone";
      // Plan again from the fresh copy and the caches as they are now: both moved while we read.
      await reevaluate();
      round--;
      continue;
    }
    const learned = await applySteps(ctx, pass, steps);
    if (learned.recorded.length > 0)
      log.info({ recorded: learned.recorded.map((e) => `${e.kind}/${e.name}`) }, "recorded children");
    pass.learn(learned);
    if (pass.failed) {
      log.warn({ errors: pass.applyErrors }, "apply failed");
      break;
    }
    await reevaluate();
  }
  return "done";
}

/**
 * The writes of one round (pure): what the evaluation wants, minus unwatchable objects and those
 * this pass already wrote as they are still wanted. A dependent applied beside its dependency
 * (both rendered from cached copies) is written again here when the dependency's answer changes
 * it, so the pass ends consistent with its own answers rather than leaving that to the watch
 * event echoing them. Where a child lands is not limited here: the author policy admitted the instance only
 * if its author may write every child where it lands (author-policy/author-checks.ts).
 */
function planRound(
  ctx: Pick<Applier, "applyMemo">,
  pass: InstancePass,
  evaluation: InstanceEvaluation,
  watchErrors: ReadonlyMap<string, string>,
): ApplyStep[] {
  return planApplies({
    desired: evaluation.apply.filter((desired) => !watchErrors.has(nodeIdOf(desired))),
    inventory: pass.inventory,
    cached: (identity) => pass.lookup.get(identity),
    upToDate: (desired, live) => ctx.applyMemo.upToDate(desired, live),
    settled: (key, desired) =>
      pass.blocked.has(key) ||
      pass.overlay.get(key) === null ||
      (pass.writtenAs.has(key) && jsonEqual(pass.writtenAs.get(key), desired)),
  });
}

/** Reads the instance from the API server; false when it is deleted (or being deleted): create nothing. */
async function confirmInstance(ctx: Applier, pass: InstancePass): Promise<boolean> {
  const current = await readCurrent(ctx, pass.instance);
  if (current === undefined || current.metadata?.deletionTimestamp !== undefined) return false;
  pass.rebase(current, readInventory(current));
  return true;
}

/** Applies every step at once and returns what the answers taught about ownership. */
async function applySteps(ctx: Applier, pass: InstancePass, steps: readonly ApplyStep[]): Promise<InventoryDelta> {
  const results = await Promise.allSettled(steps.map((step) => apply(ctx, pass, step.body)));
  const deltas = await Promise.all(
    steps.map(async (step, i) => {
      const outcome = readApplyOutcome(step, results[i] as PromiseSettledResult<KubeJson>);
      if (outcome.kind === "written") {
        pass.overlay.set(identityKey(step.identity), outcome.response);
        pass.writtenAs.set(identityKey(step.identity), step.desired);
        ctx.applyMemo.record(step.desired, outcome.response);
        return { recorded: outcome.record === undefined ? [] : [outcome.record], removedUids: [] };
      }
      if (outcome.kind === "failed") {
        pass.applyErrors[step.nodeId] = `apply ${describeIdentity(step.identity)}: ${outcome.message}`;
        if (isServerUnavailable(outcome.cause)) pass.serverFailures.add(step.nodeId);
        return emptyDelta();
      }
      // The guard refused the write: whose object is there? Only a live read may say.
      const settled = await settleExisting(ctx, pass, step);
      if (settled.error !== undefined) {
        pass.applyErrors[step.nodeId] = settled.error;
        pass.blocked.add(identityKey(step.identity));
      }
      return { recorded: settled.recorded, removedUids: outcome.forgetUid === undefined ? [] : [outcome.forgetUid] };
    }),
  );
  return deltas.reduce(mergeDeltas, emptyDelta());
}

/**
 * Server-side apply, in the cluster the body names (its target annotation), else ours. In ours,
 * the watch event that echoes the answer queues nothing: this pass acts on the answer itself.
 */
async function apply(
  ctx: Pick<Applier, "client" | "clusters" | "ownWrites" | "accessReviews">,
  pass: Pick<InstancePass, "instanceKey" | "gate">,
  body: KubeJson,
): Promise<KubeJson> {
  const send = () => applyChild(ctx, pass.gate, body);
  return clusterOf(body) === undefined ? ctx.ownWrites.write(body, pass.instanceKey, send) : send();
}

/**
 * A guarded write was refused: read the live object and decide — record it (ours after all),
 * adopt it (the user opted in), or leave it alone with a condition that names it.
 */
async function settleExisting(
  ctx: Applier,
  pass: InstancePass,
  step: ApplyStep,
): Promise<{ recorded: OwnedChild[]; error?: string }> {
  let live: KubeJson | undefined;
  try {
    live = await readChild(ctx, step.identity);
  } catch (error) {
    if (!isNotFound(error))
      return {
        recorded: [],
        error: `read ${describeIdentity(step.identity)}: ${error instanceof Error ? error.message : String(error)}`,
      };
  }
  const decision = judgeExisting(step, live, pass.owner, pass.inventory, pass.policy);
  switch (decision.kind) {
    case "retry":
      return { recorded: [] };
    case "record":
      return { recorded: [decision.entry] };
    case "conflict":
      return { recorded: [], error: decision.message };
    case "adopt":
      try {
        const response = await apply(ctx, pass, withUid(step.desired, decision.entry.uid));
        pass.overlay.set(identityKey(step.identity), response);
        pass.writtenAs.set(identityKey(step.identity), step.desired);
        ctx.applyMemo.record(step.desired, response);
        // Recorded after the apply, so nothing is written to an object the gate would not let us adopt.
        const record = live === undefined ? undefined : adoptionRecordPatch(live, step.desired);
        if (record !== undefined)
          await patchChild(ctx, step.identity, record).catch((error: unknown) => {
            pass.applyErrors[step.nodeId] =
              `adopt ${describeIdentity(step.identity)}: could not record the labels the adoption overwrote: ${error instanceof Error ? error.message : String(error)}`;
          });
        return { recorded: [decision.entry] };
      } catch (error) {
        return {
          recorded: [],
          error: `adopt ${describeIdentity(step.identity)}: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
  }
}
