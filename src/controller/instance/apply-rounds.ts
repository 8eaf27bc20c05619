/**
 * Plan and apply until the graph settles (docs/reference/kro-reference.md §6.6–§6.8, event-driven):
 * plan the writes the current evaluation asks for (pure: apply-plan.ts), send them, and as answers
 * come back read what each means (apply-outcome.ts) and evaluate again with them as observed state.
 * Dependency levels are not barriers: a dependent is sent as soon as the answers it reads are in,
 * while writes it does not read are still in flight — so one slow answer holds only what depends on
 * it, and a chain converges in as many round trips as it has levels. A guarded write that is
 * refused is settled by a live read: ours after all, adopted (opt-in), or left alone with a condition.
 */
import { isNotFound, isServerUnavailable } from "../../kube/index.js";
import { clusterOf, identityKey, type InstanceEvaluation, type KubeJson } from "../../runtime/index.js";
import type { Logger } from "../../observability/index.js";
import { jsonEqual, type ControllerContext } from "../context/index.js";
import { nodeIdOf, planApplies, withUid, type ApplyStep } from "./apply-plan.js";
import { afterAnswers, afterMove, FLOW_START, nextMove, shouldPlan } from "./apply-flow.js";
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

/**
 * Bounds a pass whose evaluation never settles (a dependent that changes with every answer): at
 * most this many sends beyond one per desired object. A realistic graph needs one per level.
 */
const MAX_EXTRA_SENDS = 64;

/** What applying needs: the client (applies, live reads, discovery) and the apply memo. */
export type Applier = Pick<ControllerContext, "client" | "applyMemo" | "clusters" | "ownWrites" | "accessReviews">;

/** One write's answer, not yet read into the pass. */
interface Answer {
  readonly step: ApplyStep;
  readonly result: PromiseSettledResult<KubeJson>;
}

/**
 * Applies until nothing is left to write, a write fails, or the graph cannot be evaluated; every
 * write sent is answered and learned before this returns. Returns "gone" when the instance turned
 * out to be deleted before its first create. `graph.reevaluate` evaluates the graph again from
 * `pass.instance` into `pass.evaluation` — through the read gate, so a read first named by an
 * answer is judged before any child made from it is written. `graph.feeders`: the nodes another
 * node reads (graph/feeding-nodes.ts); only their answers, and the last one, are worth an
 * evaluation of their own. What to do at each step is decided by apply-flow.ts; this is its I/O.
 */
export async function applyRounds(
  ctx: Applier,
  pass: InstancePass,
  watchErrors: ReadonlyMap<string, string>,
  graph: { readonly reevaluate: () => Promise<void>; readonly feeders: ReadonlySet<string> },
  log: Logger,
): Promise<"done" | "gone"> {
  const { reevaluate, feeders } = graph;
  const answered: Answer[] = [];
  let wake: (() => void) | undefined;
  const sent = new Set<Promise<void>>();
  const send = (step: ApplyStep): void => {
    const answer = apply(ctx, pass, step.body)
      .then(
        (value): PromiseSettledResult<KubeJson> => ({ status: "fulfilled", value }),
        (reason: unknown): PromiseSettledResult<KubeJson> => ({ status: "rejected", reason }),
      )
      .then((result) => {
        answered.push({ step, result });
        sent.delete(answer);
        wake?.();
      });
    sent.add(answer);
  };
  try {
    return await flow();
  } finally {
    // A pass that threw (its evaluation, a live read) still waits for what it sent: no write of
    // this pass lands after it (its creation key lets the next pass record what did).
    await Promise.all(sent);
  }

  async function flow(): Promise<"done" | "gone"> {
    let state = FLOW_START;
    for (;;) {
      // Planning compares every desired object with its cached copy: done once per evaluation, not
      // once per answer (without a new evaluation, an answer can only settle what was planned).
      const planned = shouldPlan(state, pass.evaluation.error !== undefined)
        ? planRound(ctx, pass, pass.evaluation, watchErrors)
        : [];
      const move = nextMove(state, planned, {
        confirmed: pass.confirmed,
        maxSends: MAX_EXTRA_SENDS + pass.evaluation.apply.length,
      });
      state = afterMove(state, move);
      if (move.kind === "done") return "done";
      if (move.kind === "confirm") {
        // Before the first create, make sure the instance still exists: the cache may be behind.
        if (!(await confirmInstance(ctx, pass))) return "gone";
        // Plan again from the fresh copy and the caches as they are now: both moved while we read.
        await reevaluate();
        continue;
      }
      if (move.kind === "send") for (const step of move.steps) send(step);
      if (answered.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      // Every answer in by now is read at once: one evaluation for answers that arrive together.
      const batch = answered.splice(0);
      const { delta, failed } = await readAnswers(ctx, pass, batch);
      if (delta.recorded.length > 0)
        log.info({ recorded: delta.recorded.map((e) => `${e.kind}/${e.name}`) }, "recorded children");
      pass.learn(delta);
      const next = afterAnswers(
        state,
        batch.map(({ step }) => step),
        failed,
        feeders,
      );
      state = next.state;
      if (next.firstFailure) log.warn({ errors: pass.applyErrors }, "apply failed");
      if (next.reevaluate) await reevaluate();
    }
  }
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

/**
 * Reads answers into the pass (overlay, memo, refusals settled): what they taught about ownership,
 * and whether a write failed or was refused.
 */
async function readAnswers(
  ctx: Applier,
  pass: InstancePass,
  answers: readonly Answer[],
): Promise<{ delta: InventoryDelta; failed: boolean }> {
  let failed = false;
  const deltas = await Promise.all(
    answers.map(async ({ step, result }) => {
      const outcome = readApplyOutcome(step, result);
      if (outcome.kind === "written") {
        pass.overlay.set(identityKey(step.identity), outcome.response);
        pass.writtenAs.set(identityKey(step.identity), step.desired);
        ctx.applyMemo.record(step.desired, outcome.response);
        return { recorded: outcome.record === undefined ? [] : [outcome.record], removedUids: [] };
      }
      if (outcome.kind === "failed") {
        pass.applyErrors[step.nodeId] = `apply ${describeIdentity(step.identity)}: ${outcome.message}`;
        failed = true;
        if (isServerUnavailable(outcome.cause)) pass.serverFailures.add(step.nodeId);
        return emptyDelta();
      }
      // The guard refused the write: whose object is there? Only a live read may say.
      const settled = await settleExisting(ctx, pass, step);
      if (settled.error !== undefined) {
        pass.applyErrors[step.nodeId] = settled.error;
        failed = true;
        pass.blocked.add(identityKey(step.identity));
      }
      return { recorded: settled.recorded, removedUids: outcome.forgetUid === undefined ? [] : [outcome.forgetUid] };
    }),
  );
  return { delta: deltas.reduce(mergeDeltas, emptyDelta()), failed };
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
