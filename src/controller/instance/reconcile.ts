/**
 * One instance reconcile (kro-reference §6.6–§6.10), event-driven: within one reconcile the
 * runtime is evaluated again after every apply round, with the apply responses as observed
 * state, so a chain of dependents converges in as many round-trips as it has levels instead of
 * one requeue per level. Writes happen only when something differs: a converged instance costs
 * no writes at all.
 *
 * This file is the executor; the decisions are pure and unit-tested: apply-plan.ts (which writes,
 * guarded how), apply-outcome.ts (what an answer means), removal-plan.ts (what may be removed),
 * inventory-validation.ts (which records are believable). The record of what we own is written
 * with preconditions (instance-record.ts). See docs/design/controller.md, "Ownership".
 */
import { ANNOTATIONS, FIELD_MANAGERS } from "../../api/index.js";
import { isNotFound, type KubeObject } from "../../kube/index.js";
import { buildInstanceStatus, evaluateInstance, identityKey, prunePlan, type InstanceEvaluation, type KubeJson } from "../../runtime/index.js";
import type { ControllerContext } from "../context/index.js";
import type { Logger } from "../../observability/index.js";
import type { ReconcileResult } from "../loop/index.js";
import { identityFor, type Overlay } from "../watches/index.js";
import { deleteInstance } from "./deletion.js";
import { isSuspended, writeStatus } from "./status-write.js";
import { containmentRefusals } from "./containment-guard.js";
import { instanceKey, type ServedGraph } from "../context/index.js";
import { ensureManaged, InstanceGoneError, readCurrent, recordDelta } from "./record.js";
import { applyDelta, describeIdentity, emptyDelta, mergeDeltas, readInventory, type Inventory, type InventoryDelta, type OwnedChild } from "./inventory.js";
import { nodeIdOf, planApplies, withUid, type ApplyStep } from "./apply-plan.js";
import { adoptionPolicy, judgeExisting, readApplyOutcome, type AdoptionPolicy } from "./apply-outcome.js";
import { ownerIdentity, recoverUnrecorded, reportRefused, validatedRemovalContext } from "./ownership-checks.js";
import { deleteOwnedChild, removeChildren } from "./child-removal.js";
import { runtimeOptionsFor } from "./runtime-options.js";
import { withHelmCluster } from "../helm/index.js";
import { settleScopes } from "./scope-settling.js";

/** Enough rounds for any realistic graph depth; each round applies at least one new object. */
const MAX_APPLY_ROUNDS = 64;
/** Retry pace of an instance with a child kind the controller may not watch (see ChildWatches). */
const UNWATCHABLE_RETRY_MS = 5_000;

export async function reconcileInstance(ctx: ControllerContext, served: ServedGraph, namespace: string | undefined, name: string, log: Logger = ctx.logger): Promise<ReconcileResult> {
  const key = instanceKey(served.rgdName, namespace, name);
  const ref = { apiVersion: served.instance.apiVersion, kind: served.instance.kind, name, namespace };
  // The informer's copy when it has one; a GET only for what it has not seen (yet). A stale copy
  // is caught by the resourceVersion preconditions of every write to the instance.
  let instance: KubeObject | undefined = ctx.instanceLeases.get(served.rgdName)?.informer.store.getByName(namespace, name);
  if (instance === undefined) {
    try {
      instance = await ctx.client.get(ref);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      ctx.watches.forget(key);
      return {};
    }
  }
  // Deletion goes by inventory with direct requests where the cache cannot tell: a kind the
  // controller may not watch never keeps an instance from being deleted.
  if (instance.metadata?.deletionTimestamp !== undefined) {
    log.debug({ rv: instance.metadata.resourceVersion, finalizers: instance.metadata.finalizers }, "deleting instance");
    await ctx.watches.ensure(served.graph);
    return deleteInstance(ctx, served, instance, key);
  }
  // Kinds it may not watch (RBAC) fail alone: every other node still converges.
  const watchErrors = await ctx.watches.ensure(served.graph);
  let inventory: Inventory & { key: string };
  let confirmed: boolean;
  try {
    ({ instance, inventory, confirmed } = await ensureManaged(ctx, served, instance));
  } catch (error) {
    if (error instanceof InstanceGoneError) return {};
    throw error;
  }
  const graph = served.graph;
  const options = await withHelmCluster(ctx, served, runtimeOptionsFor(ctx));

  if (isSuspended(instance)) {
    const evaluation = evaluateInstance(graph, instance, ctx.watches.lookup(new Map()), options);
    await writeStatus(ctx, instance, buildInstanceStatus(graph, instance, evaluation, { suspended: true, now: ctx.now() }));
    return {};
  }

  const owner = ownerIdentity(served, instance);
  const policy = adoptionPolicy(instance.metadata?.annotations?.[ANNOTATIONS.adopt], undefined);
  // Children we created but a crash kept us from recording carry our creation key: record them.
  let delta: InventoryDelta = recoverUnrecorded(ctx.watches.ownedBy(owner.uid), inventory);
  inventory = { key: inventory.key, entries: applyDelta(inventory, delta) };

  const overlay: Overlay = new Map();
  const lookup = ctx.watches.lookup(overlay);
  const blocked = new Set<string>();
  const applyErrors: Record<string, string> = {};
  // External references and chart lookups are watched in the scope they name (see
  // external-scopes.ts): a scope seen for the first time is started and synced, then the graph
  // is evaluated again, until no new scope appears (bounded, see scope-settling.ts).
  const current = instance;
  let evaluation: InstanceEvaluation = await settleScopes(ctx, key, graph, watchErrors, () => evaluateInstance(graph, current, lookup, options));
  // Children refused by namespace containment are never written; they are not apply errors
  // (nothing to retry until the RGD or the instance changes), so the rest keeps converging.
  const refusedNodes: Record<string, string> = {};
  for (let round = 0; round < MAX_APPLY_ROUNDS && evaluation.error === undefined; round++) {
    const refused = await containmentRefusals(ctx, served, instance, evaluation.apply);
    for (const refusal of refused.values()) refusedNodes[refusal.nodeId] = refusal.message;
    const steps = planApplies({
      desired: evaluation.apply.filter((desired) => !refused.has(identityKey(identityFor(desired))) && !watchErrors.has(nodeIdOf(desired))),
      inventory,
      cached: (identity) => lookup.get(identity),
      upToDate: (desired, live) => ctx.applyMemo.upToDate(desired, live),
      written: new Set([...overlay.keys(), ...blocked]),
    });
    if (steps.length === 0) break;
    if (!confirmed && steps.some((step) => step.mode === "create")) {
      const current = await readCurrent(ctx, instance);
      // Deleted (or being deleted) behind the cache's back: create nothing; its deletion comes next.
      if (current === undefined || current.metadata?.deletionTimestamp !== undefined) return {};
      instance = current;
      confirmed = true;
      const fresh = readInventory(current);
      inventory = { key: fresh.key ?? inventory.key, entries: applyDelta(fresh, delta) };
      round--;
      continue;
    }
    const results = await Promise.allSettled(steps.map((step) => apply(ctx, step.body)));
    const roundDelta = await Promise.all(steps.map(async (step, i) => {
      const outcome = readApplyOutcome(step, results[i] as PromiseSettledResult<KubeJson>);
      if (outcome.kind === "written") {
        overlay.set(identityKey(step.identity), outcome.response);
        ctx.applyMemo.record(step.desired, outcome.response);
        return { recorded: outcome.record === undefined ? [] : [outcome.record], removedUids: [] };
      }
      if (outcome.kind === "failed") {
        applyErrors[step.nodeId] = `apply ${describeIdentity(step.identity)}: ${outcome.message}`;
        return emptyDelta();
      }
      // The guard refused the write: whose object is there? Only a live read may say.
      const settled = await settleExisting(ctx, step, inventory, owner, policy, overlay);
      if (settled.error !== undefined) {
        applyErrors[step.nodeId] = settled.error;
        blocked.add(identityKey(step.identity));
      }
      return { recorded: settled.recorded, removedUids: outcome.forgetUid === undefined ? [] : [outcome.forgetUid] };
    }));
    const learned = roundDelta.reduce(mergeDeltas, emptyDelta());
    if (learned.recorded.length > 0) log.info({ recorded: learned.recorded.map((e) => `${e.kind}/${e.name}`) }, "recorded children");
    delta = mergeDeltas(delta, learned);
    inventory = { key: inventory.key, entries: applyDelta(inventory, learned) };
    if (Object.keys(applyErrors).length > 0) {
      log.warn({ errors: applyErrors }, "apply failed");
      break;
    }
    evaluation = evaluateInstance(graph, instance, lookup, options);
  }
  // What this pass read last: a scope it names for the first time (an external named by
  // another's data) needs one more pass once it is synced.
  if ((await ctx.watches.watchExternals(key, evaluation.externals)).started) ctx.instanceQueue.add(key);

  if (evaluation.error === undefined && !evaluation.pending && Object.keys(applyErrors).length === 0 && watchErrors.size === 0) {
    const waves = prunePlan(graph, inventory.entries, evaluation) as OwnedChild[][];
    if (waves.length > 0) {
      const removed = await removeChildren(ctx, waves, lookup, validatedRemovalContext(graph, owner, inventory, policy));
      reportRefused(ctx, instance, removed.refused, applyErrors, log);
      Object.assign(applyErrors, removed.errors);
      if (removed.done.length > 0) {
        log.info({ pruned: removed.done.map((e) => `${e.kind}/${e.name}`) }, "pruned children no longer desired");
        for (const entry of removed.done) overlay.set(identityKey(entry), null);
        const gone: InventoryDelta = { recorded: [], removedUids: removed.done.map((e) => e.uid) };
        delta = mergeDeltas(delta, gone);
        inventory = { key: inventory.key, entries: applyDelta(inventory, gone) };
        evaluation = evaluateInstance(graph, instance, lookup, options);
      }
    }
  }
  // One record write per reconcile (not per apply round), preconditioned and merged on conflict.
  // A crash before it loses nothing: every child we created carries our creation key.
  try {
    instance = await recordDelta(ctx, instance, delta);
  } catch (error) {
    if (!(error instanceof InstanceGoneError)) throw error;
    // The instance vanished although our finalizer was on it: kube-apiserver checks finalizers
    // before it deletes, so a DELETE racing the PATCH that added the finalizer still removes the
    // object (reproduced on 1.33). Nobody will ever reconcile it again: remove what we created.
    await removeOrphansOfGone(ctx, delta, log);
    return {};
  }
  const failedWrites = Object.entries(applyErrors);
  for (const [nodeId, message] of watchErrors) applyErrors[nodeId] = message;
  Object.assign(applyErrors, refusedNodes);
  const status = buildInstanceStatus(graph, instance, evaluation, { applyErrors, now: ctx.now() });
  await writeStatus(ctx, instance, status);
  ctx.onInstanceEvaluated?.({ rgdName: served.rgdName, instance: ref, evaluation, applyErrors, status });
  // Nothing tells the controller when RBAC grants a kind: retry at a steady pace (the probe
  // result is shared per kind) so a grant takes effect within seconds, without a restart.
  if (watchErrors.size > 0) return { requeueAfterMs: UNWATCHABLE_RETRY_MS };
  // A refused apply or delete (403 until RBAC grants the verb, a webhook, a quota, an object that
  // is not ours) is retried with the queue's backoff, as kro does; the status says what failed.
  if (failedWrites.length > 0) throw new Error(`resource error: ${failedWrites.map(([id, e]) => `${id}: ${e}`).join("; ")}`);
  // Watches wake us when dependencies change; the delayed requeue is only a safety net.
  return evaluation.pending && ctx.options.requeueIntervalMs > 0 ? { requeueAfterMs: ctx.options.requeueIntervalMs } : {};
}

async function removeOrphansOfGone(ctx: ControllerContext, delta: InventoryDelta, log: Logger): Promise<void> {
  const created = delta.recorded.filter((e) => e.ownership === "created");
  await Promise.all(created.map((entry) => deleteOwnedChild(ctx, entry)));
  log.warn({ removed: created.map((e) => `${e.kind}/${e.name}`) }, "the instance was deleted while its children were being created; removed them");
}

function apply(ctx: ControllerContext, body: KubeJson): Promise<KubeJson> {
  return ctx.client.apply(body, { fieldManager: FIELD_MANAGERS.applyset, force: true });
}

/**
 * A guarded write was refused: read the live object and decide — record it (ours after all),
 * adopt it (the user opted in), or leave it alone with a condition that names it.
 */
async function settleExisting(ctx: ControllerContext, step: ApplyStep, inventory: Inventory, owner: ReturnType<typeof ownerIdentity>, policy: AdoptionPolicy, overlay: Overlay): Promise<{ recorded: OwnedChild[]; error?: string }> {
  let live: KubeJson | undefined;
  try {
    live = await ctx.client.get<KubeObject & KubeJson>(step.identity);
  } catch (error) {
    if (!isNotFound(error)) return { recorded: [], error: `read ${describeIdentity(step.identity)}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const decision = judgeExisting(step, live, owner, inventory, policy);
  switch (decision.kind) {
    case "retry":
      return { recorded: [] };
    case "record":
      return { recorded: [decision.entry] };
    case "conflict":
      return { recorded: [], error: decision.message };
    case "adopt":
      try {
        const response = await apply(ctx, withUid(step.desired, decision.entry.uid));
        overlay.set(identityKey(step.identity), response);
        ctx.applyMemo.record(step.desired, response);
        return { recorded: [decision.entry] };
      } catch (error) {
        return { recorded: [], error: `adopt ${describeIdentity(step.identity)}: ${error instanceof Error ? error.message : String(error)}` };
      }
  }
}
