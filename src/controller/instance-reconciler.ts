/**
 * One instance reconcile (kro-reference §6.6–§6.10), event-driven: within one reconcile the
 * runtime is evaluated again after every apply round, with the apply responses as observed
 * state, so a chain of dependents converges in as many round-trips as it has levels instead of
 * one requeue per level. Writes happen only when something differs: a converged instance costs
 * no writes at all.
 */
import { ANNOTATIONS, FIELD_MANAGERS, FINALIZER, LABELS } from "../api/index.js";
import { isNotFound, type KubeObject } from "../kube/index.js";
import { buildInstanceStatus, evaluateInstance, identityKey, prunePlan, type InstanceEvaluation, type InventoryEntry, type KubeJson } from "../runtime/index.js";
import type { ControllerContext } from "./controller-context.js";
import type { Logger } from "../observability/index.js";
import type { ReconcileResult } from "./reconcile-loop.js";
import { identityFor, type Overlay } from "./child-watches.js";
import { encodeInventory, mergeInventory, readInventory, removeFromInventory } from "./inventory.js";
import { deleteInstance } from "./instance-deletion.js";
import { isSuspended, refOf, writeStatus } from "./instance-writes.js";
import { ownershipConflict } from "./ownership.js";
import { containmentRefusals } from "./containment-guard.js";
import { instanceKey, type ServedGraph } from "./served-graphs.js";

/** Enough rounds for any realistic graph depth; each round applies at least one new object. */
const MAX_APPLY_ROUNDS = 64;
/** Retry pace of an instance with a child kind the controller may not watch (see ChildWatches). */
const UNWATCHABLE_RETRY_MS = 5_000;

export async function reconcileInstance(ctx: ControllerContext, served: ServedGraph, namespace: string | undefined, name: string, log: Logger = ctx.logger): Promise<ReconcileResult> {
  const key = instanceKey(served.rgdName, namespace, name);
  const ref = { apiVersion: served.instance.apiVersion, kind: served.instance.kind, name, namespace };
  // The informer's copy when it has one; a GET only for what it has not seen (yet). A stale copy
  // is caught by the resourceVersion preconditions of our writes (conflict → retry).
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
  // Deletion goes by inventory with direct requests: it needs no watch, so a kind the
  // controller may not watch never keeps an instance from being deleted.
  if (instance.metadata?.deletionTimestamp !== undefined) {
    await ctx.watches.ensure(served.graph);
    return deleteInstance(ctx, served, instance);
  }
  // Kinds it may not watch (RBAC) fail alone: every other node still converges.
  const watchErrors = await ctx.watches.ensure(served.graph);
  instance = await ensureManaged(ctx, served, instance);
  const graph = served.graph;
  const options = { kroVersion: ctx.kroVersion, maxCollectionSize: ctx.options.maxCollectionSize };

  if (isSuspended(instance)) {
    const evaluation = evaluateInstance(graph, instance, ctx.watches.lookup(new Map()), options);
    await writeStatus(ctx, instance, buildInstanceStatus(graph, instance, evaluation, { suspended: true, now: ctx.now() }));
    return {};
  }

  const overlay: Overlay = new Map();
  const lookup = ctx.watches.lookup(overlay);
  let inventory = readInventory(instance);
  const applyErrors: Record<string, string> = {};
  let evaluation: InstanceEvaluation = evaluateInstance(graph, instance, lookup, options);
  // Children refused by namespace containment are never written; they are not apply errors
  // (nothing to retry until the RGD or the instance changes), so the rest keeps converging.
  const refusedNodes: Record<string, string> = {};
  for (let round = 0; round < MAX_APPLY_ROUNDS && evaluation.error === undefined; round++) {
    const refused = await containmentRefusals(ctx, served, instance, evaluation.apply);
    for (const refusal of refused.values()) refusedNodes[refusal.nodeId] = refusal.message;
    const stale = evaluation.apply.filter((desired) => !refused.has(identityKey(identityFor(desired))) && !watchErrors.has(nodeIdOf(desired)) && !overlay.has(identityKey(identityFor(desired))) && !ctx.applyMemo.upToDate(desired, lookup.get(identityFor(desired))))
      .filter((desired) => {
        const conflict = ownershipConflict(desired, lookup.get(identityFor(desired)));
        if (conflict !== undefined) applyErrors[nodeIdOf(desired)] = `apply ${describe(desired)}: ${conflict}`;
        return conflict === undefined;
      });
    if (stale.length === 0) break;
    const results = await Promise.allSettled(stale.map((desired) => ctx.client.apply(desired as KubeObject, { fieldManager: FIELD_MANAGERS.applyset, force: true })));
    const created: InventoryEntry[] = [];
    results.forEach((result, i) => {
      const desired = stale[i] as KubeJson;
      const nodeId = nodeIdOf(desired);
      if (result.status === "rejected") {
        applyErrors[nodeId] = `apply ${describe(desired)}: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`;
        return;
      }
      const response = result.value as KubeJson;
      overlay.set(identityKey(identityFor(desired)), response);
      ctx.applyMemo.record(desired, response);
      const uid = (response.metadata as { uid?: string } | undefined)?.uid;
      if (uid !== undefined && !inventory.some((e) => e.uid === uid)) created.push({ ...identityFor(desired), uid, nodeId });
    });
    if (created.length > 0) inventory = mergeInventory(inventory, created);
    if (created.length > 0) log.info({ created: created.map((e) => `${e.kind}/${e.name}`) }, "created children");
    if (Object.keys(applyErrors).length > 0) {
      log.warn({ errors: applyErrors }, "apply failed");
      break;
    }
    evaluation = evaluateInstance(graph, instance, lookup, options);
  }
  ctx.watches.setRequests(key, evaluation.watches);

  if (evaluation.error === undefined && !evaluation.pending && Object.keys(applyErrors).length === 0 && watchErrors.size === 0) {
    const pruned = await prune(ctx, prunePlan(graph, inventory, evaluation), applyErrors);
    if (pruned.length > 0) {
      log.info({ pruned: pruned.map((e) => `${e.kind}/${e.name}`) }, "pruned children no longer desired");
      for (const entry of pruned) overlay.set(identityKey(entry), null);
      inventory = removeFromInventory(inventory, pruned);
      evaluation = evaluateInstance(graph, instance, lookup, options);
    }
  }
  // One inventory write per reconcile (not per apply round): a chain of 20 levels costs one
  // PATCH, not 20. If the process dies between an apply and this write, nothing is lost for
  // good: the next reconcile applies the same objects again and records their UIDs then.
  instance = await writeInventory(ctx, instance, inventory);
  const failedWrites = Object.entries(applyErrors);
  for (const [nodeId, message] of watchErrors) applyErrors[nodeId] = message;
  Object.assign(applyErrors, refusedNodes);
  const status = buildInstanceStatus(graph, instance, evaluation, { applyErrors, now: ctx.now() });
  await writeStatus(ctx, instance, status);
  ctx.onInstanceEvaluated?.({ rgdName: served.rgdName, instance: ref, evaluation, applyErrors, status });
  // Nothing tells the controller when RBAC grants a kind: retry at a steady pace (the probe
  // result is shared per kind) so a grant takes effect within seconds, without a restart.
  if (watchErrors.size > 0) return { requeueAfterMs: UNWATCHABLE_RETRY_MS };
  // A refused apply or delete (403 until RBAC grants the verb, a webhook, a quota) is retried
  // with the queue's backoff, as kro does; the status above already says what failed.
  if (failedWrites.length > 0) throw new Error(`resource error: ${failedWrites.map(([id, e]) => `${id}: ${e}`).join("; ")}`);
  // Watches wake us when dependencies change; the delayed requeue is only a safety net.
  return evaluation.pending && ctx.options.requeueIntervalMs > 0 ? { requeueAfterMs: ctx.options.requeueIntervalMs } : {};
}

/** Deletes, wave by wave, children this instance created and no longer wants. Returns what is gone. */
async function prune(ctx: ControllerContext, waves: readonly (readonly InventoryEntry[])[], errors: Record<string, string>): Promise<InventoryEntry[]> {
  const gone: InventoryEntry[] = [];
  for (const wave of waves) {
    const results = await Promise.allSettled(wave.map((entry) => ctx.client.delete(entry, { preconditions: { uid: entry.uid } })));
    results.forEach((result, i) => {
      const entry = wave[i] as InventoryEntry;
      // 404: already gone; 409: the UID changed, so the object there now is not the one we made.
      if (result.status === "fulfilled" || isNotFound(result.reason) || (result.reason as { status?: number }).status === 409) {
        gone.push(entry);
        ctx.applyMemo.forget(entry.uid);
      } else {
        errors[entry.nodeId] = `delete ${entry.kind} ${entry.name}: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`;
      }
    });
  }
  return gone;
}

async function ensureManaged(ctx: ControllerContext, served: ServedGraph, instance: KubeObject): Promise<KubeObject> {
  const labels = {
    [LABELS.owned]: "true",
    [LABELS.kroVersion]: ctx.kroVersion,
    [LABELS.rgdId]: served.rgdUid,
    [LABELS.rgdName]: served.rgdName,
  };
  const metadata = instance.metadata ?? {};
  const finalizers = metadata.finalizers ?? [];
  const hasLabels = Object.entries(labels).every(([k, v]) => metadata.labels?.[k] === v);
  if (finalizers.includes(FINALIZER) && hasLabels) return instance;
  return ctx.client.patch(refOf(instance), {
    metadata: { finalizers: finalizers.includes(FINALIZER) ? finalizers : [...finalizers, FINALIZER], labels, resourceVersion: metadata.resourceVersion },
  });
}

async function writeInventory(ctx: ControllerContext, instance: KubeObject, inventory: readonly InventoryEntry[]): Promise<KubeObject> {
  const encoded = encodeInventory(inventory);
  if (instance.metadata?.annotations?.[ANNOTATIONS.inventory] === encoded) return instance;
  return ctx.client.patch(refOf(instance), { metadata: { annotations: { [ANNOTATIONS.inventory]: encoded } } });
}

function nodeIdOf(object: KubeJson): string {
  return (object.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[LABELS.nodeId] ?? "";
}

function describe(object: KubeJson): string {
  const id = identityFor(object);
  return `${id.kind} ${id.namespace === undefined ? "" : `${id.namespace}/`}${id.name}`;
}
