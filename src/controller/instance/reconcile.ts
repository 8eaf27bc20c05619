/**
 * One instance reconcile (docs/reference/kro-reference.md §6.6–§6.10), top to bottom:
 *
 *   observe  — the instance (cache first), the watches its graph needs, our hold on it
 *   plan     — evaluate the graph (pure runtime) and decide the writes (pure: apply-plan.ts)
 *   apply    — round after round until the graph settles (apply-rounds.ts), then prune
 *   record   — one preconditioned write of what we own (record.ts)
 *   status   — the instance's status, written only when it differs (status-write.ts)
 *
 * Writes happen only when something differs: a converged instance costs no writes at all. The
 * decisions are pure and unit-tested (apply-plan.ts, apply-outcome.ts, removal-plan.ts,
 * inventory-validation.ts); each step here gets what it needs, not the whole context. See
 * docs/design/controller.md, "Ownership".
 */
import { ANNOTATIONS } from "../../api/index.js";
import { isNotFound, type KubeObject } from "../../kube/index.js";
import {
  buildInstanceStatus,
  identityKey,
  prunePlan,
  type InstanceEvaluation,
  type RuntimeOptions,
} from "../../runtime/index.js";
import type { Logger } from "../../observability/index.js";
import type { InstanceContext } from "./instance-context.js";
import type { ControllerContext, ServedGraph } from "../context/index.js";
import { instanceKey } from "../context/index.js";
import { TransientError, type ReconcileResult } from "../loop/index.js";
import { withHelmCluster } from "../helm/index.js";
import { feedingNodes } from "../../graph/index.js";
import { applyRounds } from "./apply-rounds.js";
import { adoptionPolicy } from "./apply-outcome.js";
import { deleteChildrenOfGone, removeChildren } from "./child-removal.js";
import { deleteInstance } from "./deletion.js";
import type { OwnedChild } from "./inventory.js";
import { ownerIdentity, recoverUnrecorded, reportRefused, validatedRemovalContext } from "./ownership-checks.js";
import { InstancePass } from "./pass.js";
import { relevantWatchErrors } from "./unwatchable-kinds.js";
import { ensureManaged, InstanceGoneError, recordDelta } from "./record.js";
import { recordCompletedRuns, recordVanishedRuns } from "./hook-run-record.js";
import { runtimeOptionsFor } from "./runtime-options.js";
import { settleScopes } from "./scope-settling.js";
import { checkClusterTargets } from "./cluster-targets.js";
import { gatePorts } from "./child-port.js";
import { gateRulesOf, judgeReads, requesterOf } from "./write-gate.js";
import { isSuspended, writeStatus } from "./status-write.js";
import { holdUnchecked } from "./unchecked-admission.js";
import { evaluatePass } from "./evaluate-pass.js";
import { crashForTest, enterEvaluation, evaluationMark, markedByUs, reportGuarded } from "./evaluation-crash.js";
import { timeLimitRetry } from "./time-limit-retry.js";
import { servedAtAssignedRevision, withRevisionRecord } from "./assigned-revision.js";

/** Each round of the read gate hides what it refused and evaluates again: bounded like scope settling. */
const MAX_READ_GATE_ROUNDS = 5;

/** Retry pace of an instance assigned a revision whose graph is not held (yet): the RGD's next pass compiles or moves it. */
const MISSING_REVISION_RETRY_MS = 5_000;

/** Retry pace of an instance with a child kind the controller may not watch (see ChildWatches). */
const UNWATCHABLE_RETRY_MS = 5_000;

type InstanceRef = {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
};

export async function reconcileInstance(
  ctx: InstanceContext,
  rgdServed: ServedGraph,
  namespace: string | undefined,
  name: string,
  log: Logger = ctx.logger,
): Promise<ReconcileResult> {
  const key = instanceKey(rgdServed.rgdName, namespace, name);
  const ref: InstanceRef = {
    apiVersion: rgdServed.instance.apiVersion,
    kind: rgdServed.instance.kind,
    name,
    namespace,
  };
  // Before anything is read: echoes of earlier passes' writes count as news again (context/own-writes.ts).
  ctx.ownWrites.beginPass(key);

  // 1. Observe.
  const observed = await observeInstance(ctx, rgdServed.rgdName, ref);
  if (observed === undefined) {
    ctx.instanceMemory.forget(key, undefined);
    return {};
  }
  // Under a rollout the instance runs the revision it was assigned, not necessarily the newest.
  const choice = servedAtAssignedRevision(rgdServed, observed);
  if (choice.kind === "missing") {
    log.info({ revision: choice.revision }, "assigned GraphRevision not held; waiting for the rollout to move it");
    return { requeueAfterMs: MISSING_REVISION_RETRY_MS };
  }
  const served = choice.served;
  // Deletion goes by inventory with direct requests where the cache cannot tell: a kind the
  // controller may not watch never keeps an instance from being deleted.
  if (observed.metadata?.deletionTimestamp !== undefined) {
    log.debug({ rv: observed.metadata.resourceVersion, finalizers: observed.metadata.finalizers }, "deleting instance");
    await ctx.watches.ensure(served.graph);
    return deleteInstance(ctx, served, observed, key);
  }
  // Admitted while the author policy was not in force: held back until written again under it.
  const held = await holdUnchecked(ctx, served, observed, key);
  if (held !== undefined) return held;
  // Kinds it may not watch (RBAC) fail alone: every other node still converges.
  const kindErrors = await ctx.watches.ensure(served.graph);
  // A copy: scope settling adds what the chart's lookups cannot watch.
  const watchErrors = new Map(kindErrors);
  // The crash-loop guard first (evaluation-crash.ts): a suspect waits or is reported; what is not
  // known good is marked in flight by takeCharge only once its turn has come, so a crash during a
  // suspect's lone retry never blames an instance still waiting for its own.
  const entered = await enterEvaluation(ctx, key, observed);
  if (entered.kind !== "evaluate") return reportGuarded(ctx, key, observed, entered);
  let evaluated = false;
  try {
    const pass = await takeCharge(ctx, served, observed, key);
    if (pass === undefined) return {};
    const options = renderChartsApart(ctx, key, await withHelmCluster(ctx, served, runtimeOptionsFor(ctx, key)));
    const evaluate = (instance: KubeObject): Promise<InstanceEvaluation> => {
      evaluated = true;
      if (ctx.testCrashOn?.name === name) crashForTest(ctx.testCrashOn.how);
      return evaluatePass(ctx, { key, graph: served.graph, instance, lookup: pass.lookup, options });
    };
    if (isSuspended(pass.instance)) return await reportSuspended(ctx, served, pass.instance, evaluate);
    return await planAndApply(ctx, served, ref, key, pass, { all: watchErrors, ownKinds: kindErrors }, evaluate, log);
  } finally {
    entered.done(evaluated);
  }
}

/** Steps 2 to 5 of a pass whose instance is in our charge: evaluate, apply, record, status. */
async function planAndApply(
  ctx: InstanceContext,
  served: ServedGraph,
  ref: InstanceRef,
  key: string,
  pass: InstancePass,
  unwatchable: { all: Map<string, string>; ownKinds: ReadonlyMap<string, string> },
  evaluate: (instance: KubeObject) => Promise<InstanceEvaluation>,
  log: Logger,
): Promise<ReconcileResult> {
  const watchErrors = unwatchable.all;
  // 2. Plan: evaluate until every scope the graph reads is watched (scope-settling.ts).
  const current = pass.instance;
  pass.evaluation = await settleScopes(ctx, key, served.graph, watchErrors, () => evaluate(current));
  // Children placed in other clusters: allowed targets, watched clusters (cluster-targets.ts).
  // A cluster that cannot be used now holds its own children only, and blocks pruning.
  const targets = await checkClusterTargets(ctx, served.graph, pass.evaluation, pass.inventory);
  if (targets.started) pass.evaluation = await evaluate(current);
  await gateReads(ctx, pass, () => evaluate(current));
  for (const held of targets.held) pass.blocked.add(held);
  // Hook runs we created that are gone (a Job's TTL) have finished: recorded before every apply
  // round, which would otherwise create them again (the chart's render may arrive in a later round).
  const settleRuns = async (): Promise<"recorded" | "gone"> => {
    if (!hasHooks(served)) return "recorded";
    const before = pass.instance;
    const outcome = await recordHookRuns(ctx, pass, recordVanishedRuns);
    if (pass.instance !== before) pass.evaluation = await evaluate(pass.instance);
    return outcome;
  };
  if ((await settleRuns()) === "gone") return {};

  // 3. Apply, round after round; then remove what is no longer desired.
  const reevaluate = async (): Promise<void> => {
    pass.evaluation = await evaluate(pass.instance);
    await gateReads(ctx, pass, () => evaluate(pass.instance));
    // Gone meanwhile: the next round's writes find out (the instance is read before creating).
    await settleRuns();
  };
  const applied = await applyRounds(ctx, pass, watchErrors, { reevaluate, feeders: feedingNodes(served.graph) }, log);
  if (applied === "gone") return {};
  // Hook runs this pass saw finish, recorded now so that pruning below lets `hook-succeeded` runs
  // go (hook-run-record.ts). Gone meanwhile: the record step below removes what this pass created.
  if (hasHooks(served)) {
    const before = pass.instance;
    await recordHookRuns(ctx, pass, recordCompletedRuns);
    if (pass.instance !== before) await reevaluate();
  }
  // An unwatchable kind counts only for nodes that render it or still own objects of it.
  const unavailable = new Map([
    ...relevantWatchErrors(served.graph, watchErrors, unwatchable.ownKinds, pass.evaluation, pass.inventory),
    ...targets.errors,
  ]);
  // What this pass read last: a scope it names for the first time (an external named by
  // another's data) needs one more pass once it is synced.
  if ((await ctx.watches.watchExternals(key, pass.evaluation.externals)).started) ctx.instanceQueue.add(key);
  if (!pass.evaluation.pending && pass.evaluation.error === undefined && !pass.failed && unavailable.size === 0) {
    await pruneUndesired(ctx, served, pass, evaluate, log);
  }

  // 4. Record what we own, once per reconcile (not per apply round), preconditioned and merged
  // on conflict — in the status write of step 5 where the record lives in status. A crash before
  // it loses nothing: every child we created carries our creation key.
  if ((await recordOwnership(ctx, pass, log)) === "gone") return {};

  // 5. Status, and when to look again. What pruning re-evaluated is judged before status shows it.
  await gateReads(ctx, pass, () => evaluate(pass.instance));
  const failedWrites = Object.entries(pass.applyErrors);
  await reportStatus(ctx, served, ref, pass, unavailable, log);
  const next = nextReconcile(
    ctx.options.requeueIntervalMs,
    pass.evaluation,
    failedWrites,
    unavailable,
    pass.serverFailures,
  );
  const retryMs = timeLimitRetry(
    ctx.instanceMemory.timeLimitRetried,
    key,
    pass.instance.metadata?.generation ?? 0,
    pass.evaluation.error,
  );
  return retryMs === undefined || next.requeueAfterMs !== undefined ? next : { requeueAfterMs: retryMs };
}

/**
 * The read gate (write-gate.ts, judgeReads) over what the evaluation read: a refused read is hidden
 * from the pass's lookup and the graph evaluated again without it, until nothing new is refused;
 * the refusal is the node's error (retried with backoff, so a right granted later is seen).
 */
async function gateReads(
  ctx: Pick<InstanceContext, "accessReviews" | "client">,
  pass: InstancePass,
  evaluate: () => Promise<InstanceEvaluation>,
): Promise<void> {
  const ports = gatePorts(ctx);
  for (let round = 0; round < MAX_READ_GATE_ROUNDS; round++) {
    const refused = (await judgeReads(pass.gate, pass.evaluation.externals, ports)).filter(
      (r) => !pass.hiddenReads.has(r.key),
    );
    if (refused.length === 0) return;
    for (const refusal of refused) {
      pass.hiddenReads.add(refusal.key);
      pass.applyErrors[refusal.nodeId] = refusal.message;
    }
    pass.evaluation = await evaluate();
  }
}

/**
 * Charts render in the controller's worker threads (isolation/): a pass that starts a render sees
 * the chart's children pending, and the instance is queued again when the answer is in.
 */
function renderChartsApart(ctx: InstanceContext, key: string, options: RuntimeOptions): RuntimeOptions {
  if (ctx.chartRenders === undefined || options.helm === undefined) return options;
  return {
    ...options,
    helm: {
      ...options.helm,
      render: ctx.chartRenders.port(() => {
        ctx.instanceQueue.add(key);
      }),
    },
  };
}

/**
 * The informer's copy when it has one; a GET only for what it has not seen (yet). A stale copy
 * is caught by the resourceVersion preconditions of every write to the instance.
 */
async function observeInstance(
  ctx: Pick<ControllerContext, "client" | "instanceLeases">,
  rgdName: string,
  ref: InstanceRef,
): Promise<KubeObject | undefined> {
  const cached = ctx.instanceLeases.get(rgdName)?.informer.store.getByName(ref.namespace, ref.name);
  if (cached !== undefined) return cached;
  try {
    return await ctx.client.get(ref);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Finalizer, labels and creation key on the instance (one write, none when in place), then the
 * pass's starting record: the inventory, plus children we created but a crash kept us from
 * recording (they carry our creation key). Undefined: the instance is gone.
 */
async function takeCharge(
  ctx: InstanceContext,
  served: ServedGraph,
  observed: KubeObject,
  key: string,
): Promise<InstancePass | undefined> {
  let managed;
  try {
    managed = await ensureManaged(ctx, served, observed, evaluationMark(ctx, key));
  } catch (error) {
    if (error instanceof InstanceGoneError) return undefined;
    throw error;
  }
  if (managed.marked) markedByUs(ctx, key, managed.instance);
  const owner = ownerIdentity(served, managed.instance);
  const policy = adoptionPolicy(managed.instance.metadata?.annotations?.[ANNOTATIONS.adopt], undefined);
  const pass = new InstancePass(key, managed, owner, policy, (overlay) => ctx.watches.lookup(overlay));
  pass.gate = gateRulesOf(served.graph, {
    rights: ctx.authorPolicies.rightsOf(served.rgdName),
    requester: requesterOf(managed.instance.metadata?.annotations),
    // With the author check off controller-wide (kro's exact model) the controller's rights are the bound.
    author: ctx.options.authorCheck === "Disabled" ? undefined : served.author,
    adoption: policy,
    nested: (apiVersion, kind) => {
      const group = apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "";
      return ctx.served.forKind(group, kind)?.instance.apiVersion === apiVersion;
    },
  });
  pass.learn(recoverUnrecorded(ctx.watches.ownedBy(owner.uid), pass.inventory));
  return pass;
}

/** A suspended instance is evaluated for its status only: nothing is applied or removed. */
async function reportSuspended(
  ctx: InstanceContext,
  served: ServedGraph,
  instance: KubeObject,
  evaluate: (instance: KubeObject) => Promise<InstanceEvaluation>,
): Promise<ReconcileResult> {
  const evaluation = await evaluate(instance);
  await writeStatus(
    ctx,
    instance,
    buildInstanceStatus(served.graph, instance, evaluation, { suspended: true, now: ctx.now() }),
  );
  return {};
}

/** Children recorded as ours that the graph no longer wants, removed in reverse dependency waves. */
async function pruneUndesired(
  ctx: InstanceContext,
  served: ServedGraph,
  pass: InstancePass,
  evaluate: (instance: KubeObject) => Promise<InstanceEvaluation>,
  log: Logger,
): Promise<void> {
  const waves = prunePlan(served.graph, pass.inventory.entries, pass.evaluation) as OwnedChild[][];
  if (waves.length === 0) return;
  const removed = await removeChildren(
    ctx,
    waves,
    pass.lookup,
    validatedRemovalContext(served.graph, pass.owner, pass.inventory, pass.policy),
  );
  reportRefused(ctx, pass.instance, removed.refused, pass.applyErrors, log);
  Object.assign(pass.applyErrors, removed.errors);
  if (removed.done.length === 0) return;
  log.info({ pruned: removed.done.map((e) => `${e.kind}/${e.name}`) }, "pruned children no longer desired");
  for (const entry of removed.done) pass.overlay.set(identityKey(entry), null);
  pass.learn({ recorded: [], removedUids: removed.done.map((e) => e.uid) });
  pass.evaluation = await evaluate(pass.instance);
}

const hasHooks = (served: ServedGraph): boolean =>
  served.graph.dialect === "template" && served.graph.helm !== undefined;

/** Writes finished hook runs on the instance (hook-run-record.ts); "gone" when the instance vanished meanwhile. */
async function recordHookRuns(
  ctx: InstanceContext,
  pass: InstancePass,
  write: (ctx: InstanceContext, pass: InstancePass) => Promise<KubeObject>,
): Promise<"recorded" | "gone"> {
  try {
    pass.instance = await write(ctx, pass);
    return "recorded";
  } catch (error) {
    if (!(error instanceof InstanceGoneError)) throw error;
    return "gone";
  }
}

/** Writes the pass's delta into the instance's record; "gone" when the instance vanished meanwhile. */
async function recordOwnership(ctx: InstanceContext, pass: InstancePass, log: Logger): Promise<"recorded" | "gone"> {
  try {
    pass.instance = await recordDelta(ctx, pass.instance, pass.delta);
    return "recorded";
  } catch (error) {
    if (!(error instanceof InstanceGoneError)) throw error;
    // The instance vanished although our finalizer was on it: kube-apiserver checks finalizers
    // before it deletes, so a DELETE racing the PATCH that added the finalizer still removes the
    // object (reproduced on 1.33). Nobody will ever reconcile it again: remove what we created.
    await deleteChildrenOfGone(ctx, pass.delta, log);
    return "gone";
  }
}

/** Builds the status from the last evaluation and every failure of the pass, and writes it. */
async function reportStatus(
  ctx: InstanceContext,
  served: ServedGraph,
  ref: InstanceRef,
  pass: InstancePass,
  watchErrors: ReadonlyMap<string, string>,
  log: Logger,
): Promise<void> {
  const evaluation = pass.evaluation;
  const applyErrors = { ...pass.applyErrors, ...Object.fromEntries(watchErrors), ...pass.refusedNodes };
  const status = withRevisionRecord(
    served,
    pass.instance,
    buildInstanceStatus(served.graph, pass.instance, evaluation, { applyErrors, now: ctx.now() }),
    ctx.now(),
  );
  try {
    // Where the record lives in status, this write is also the pass's record (status-write.ts).
    await writeStatus(ctx, pass.instance, status, pass.delta);
  } catch (error) {
    if (!isNotFound(error) && !(error instanceof InstanceGoneError)) throw error;
    // Gone although our finalizer was on it (see recordOwnership): remove what this pass created.
    await deleteChildrenOfGone(ctx, pass.delta, log);
    return;
  }
  ctx.onInstanceEvaluated?.({ rgdName: served.rgdName, instance: ref, evaluation, applyErrors, status });
}

function nextReconcile(
  requeueIntervalMs: number,
  evaluation: InstanceEvaluation,
  failedWrites: readonly [string, string][],
  watchErrors: ReadonlyMap<string, string>,
  serverFailures: ReadonlySet<string>,
): ReconcileResult {
  // Nothing tells the controller when RBAC grants a kind: retry at a steady pace (the probe
  // result is shared per kind) so a grant takes effect within seconds, without a restart.
  if (watchErrors.size > 0) return { requeueAfterMs: UNWATCHABLE_RETRY_MS };
  // A refused apply or delete (403 until RBAC grants the verb, a webhook, a quota, an object that
  // is not ours) is retried with the queue's backoff, as kro does; the status says what failed.
  if (failedWrites.length > 0) {
    const message = `resource error: ${failedWrites.map(([id, e]) => `${id}: ${e}`).join("; ")}`;
    // Only the server's failures (an outage): retried at once when it is back, not after the backoff they grew.
    throw failedWrites.every(([id]) => serverFailures.has(id)) ? new TransientError(message) : new Error(message);
  }
  // Watches wake us when dependencies change; the delayed requeue is only a safety net — also
  // for a nested instance's readiness, which another reconcile writes (here, or in another
  // replica): a missed event there left a parent reporting a stale nested state for minutes.
  const waiting = evaluation.pending || evaluation.nodes.some((n) => n.pending?.nestedInstance === true);
  return waiting && requeueIntervalMs > 0 ? { requeueAfterMs: requeueIntervalMs } : {};
}
