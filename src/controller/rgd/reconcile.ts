/**
 * One RGD reconcile (kro-reference §6.2): finalizer, compile, install or attach the instance
 * kind, record the graph as a GraphRevision, serve its instances, write status. A compile failure
 * marks the RGD not accepted but leaves the last good graph serving — from memory, or after a
 * restart from the newest GraphRevision; ownership conflicts are reported, not fought.
 */
import { FINALIZER, KRO_API_VERSION, LABELS, labelMatches, RGD } from "../../api/index.js";
import { formatIssue, hasErrors } from "../../diag/index.js";
import { ApiError, isNotFound, type KubeObject } from "../../kube/index.js";
import { containmentPolicyOf, type CompiledGraph } from "../../graph/index.js";
import type { ReconcileResult } from "../loop/index.js";
import type { ControllerContext } from "../context/index.js";
import { allowsBreakingChanges, crdRef, installCrd } from "../crds/index.js";
import { attachUserCrd, type KindResult } from "../crds/index.js";
import { jsonEqual } from "../context/index.js";
import { recordConditionChanges } from "../context/index.js";
import { RGD_CONDITIONS, RGD_STATES, rgdStatus, unknownCondition, type RgdStatusParts } from "./rgd-status.js";
import { currentConditions, stamp, type ConditionInput } from "../../runtime/index.js";
import type { InstanceKind, ServedGraph } from "../context/index.js";
import { startServing, stopServing } from "./instance-kinds.js";
import { deleteGraphRevisions, ensureGraphRevision, latestValidRevision, pruneGraphRevisions } from "./graph-revisions.js";
import { lastIssuedRevision } from "./graph-revision-policy.js";
import { ensureAuthorPolicy, removeAuthorPolicy } from "../author-policy/index.js";

const UNKNOWN_KIND_CODE = "rgd.unknown-kind";
const UNKNOWN_KIND_RETRY_MS = 5000;

const rgdRef = (name: string) => ({ apiVersion: KRO_API_VERSION, kind: RGD.kind, name });

/** A condition message must fit (the API server caps it at 32 KiB): the first issues, then a count. */
const MAX_MESSAGE_LENGTH = 4096;
function boundedMessage(parts: readonly string[]): string {
  let message = "";
  for (const [i, part] of parts.entries()) {
    const next = message === "" ? part : `${message}; ${part}`;
    if (next.length > MAX_MESSAGE_LENGTH) return `${message === "" ? part.slice(0, MAX_MESSAGE_LENGTH) : message}; … and ${parts.length - i - (message === "" ? 1 : 0)} more issue(s)`;
    message = next;
  }
  return message;
}

export async function reconcileRgd(ctx: ControllerContext, name: string): Promise<ReconcileResult> {
  let rgd: KubeObject;
  try {
    rgd = await ctx.client.get(rgdRef(name));
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await stopServing(ctx, name);
    return {};
  }
  if (rgd.metadata?.deletionTimestamp !== undefined) {
    if (ctx.served.get(name) === undefined) await serveForDeletion(ctx, rgd);
    return deleteRgd(ctx, rgd);
  }
  rgd = await ensureFinalizer(ctx, rgd);

  const compiled = await ctx.compile(rgd);
  const generation = rgd.metadata?.generation ?? 0;
  const previous = ctx.served.get(name);
  const parts: { -readonly [K in keyof RgdStatusParts]: ConditionInput } = {
    graphAccepted: unknownCondition(RGD_CONDITIONS.graphAccepted),
    kindReady: unknownCondition(RGD_CONDITIONS.kindReady),
    controllerReady: unknownCondition(RGD_CONDITIONS.controllerReady),
  };
  let graph: CompiledGraph | undefined = compiled.graph;
  let lastIssued = lastIssuedRevision(rgd);
  let failure: Error | undefined;
  let kindError: { error: unknown } | undefined;
  if (compiled.graph === undefined || hasErrors(compiled.issues)) {
    const message = boundedMessage(compiled.issues.filter((i) => i.severity === "error").map(formatIssue));
    parts.graphAccepted = { type: RGD_CONDITIONS.graphAccepted, status: "False", reason: "InvalidResourceGraph", message };
    graph = undefined;
    const { serving, lastIssued: seen } = await keepServing(ctx, rgd, previous);
    lastIssued = Math.max(lastIssued, seen);
    if (serving !== undefined) {
      // The last good graph keeps serving; say which one and why instead of pretending the kind is gone.
      const which = servedGraphText(serving);
      parts.kindReady = { type: RGD_CONDITIONS.kindReady, status: "True", reason: "Ready", message: `kind ${serving.instance.kind} is served by the last valid graph (${which}) because the current spec (generation ${generation}) is invalid` };
      parts.controllerReady = { type: RGD_CONDITIONS.controllerReady, status: "True", reason: "Running", message: `controller is running the last valid graph (${which}); the current spec is invalid` };
    } else {
      parts.controllerReady = { type: RGD_CONDITIONS.controllerReady, status: "False", reason: "NoValidGraph", message: "no graph is served: the current spec is invalid and no GraphRevision of this RGD compiles" };
    }
  } else {
    parts.graphAccepted = { type: RGD_CONDITIONS.graphAccepted, status: "True", reason: "Valid", message: "resource graph and schema are valid" };
    // Fail closed: no instance is served without the instance-author policy. kro generates the
    // CEL dialect's CRD, so there the policy goes first: the API server loads it while the CRD
    // becomes established, and no instance can be admitted unchecked (the user's own CRD of the
    // template dialect exists already; its plural is known only from the cluster).
    const early = compiled.graph.dialect === "cel" ? await ensureAuthorPolicy(ctx, rgd, compiled.graph, { ...compiled.graph.instance, namespaced: compiled.graph.instance.scope === "Namespaced" }) : undefined;
    if (early?.ok === false) await failAuthorPolicy(ctx, rgd, parts, graph, early.message);
    const kind = await ensureKindReporting(ctx, rgd, compiled.graph);
    if (!kind.ok) {
      if ("error" in kind) kindError = { error: kind.error };
      parts.kindReady = { type: RGD_CONDITIONS.kindReady, status: "False", reason: kind.reason, message: kind.message };
      // E.g. a refused breaking change after a restart: the kind as last served still works.
      const { serving, lastIssued: seen } = await keepServing(ctx, rgd, previous);
      lastIssued = Math.max(lastIssued, seen);
      if (serving !== undefined) {
        parts.controllerReady = { type: RGD_CONDITIONS.controllerReady, status: "True", reason: "Running", message: `controller is running the last valid graph (${servedGraphText(serving)}) because the kind of the current spec is not ready` };
      }
    } else {
      parts.kindReady = { type: RGD_CONDITIONS.kindReady, status: "True", reason: "Ready", message: `kind ${kind.instance.kind} has been accepted and ready` };
      const authz = early ?? await ensureAuthorPolicy(ctx, rgd, compiled.graph, kind.instance);
      if (!authz.ok) await failAuthorPolicy(ctx, rgd, parts, graph, authz.message);
      // Recorded before it is served: after a restart, the newest revision is the graph instances ran on.
      const issued = await ensureGraphRevision(ctx, rgd, compiled.graph).catch((error: unknown) => { failure = error instanceof Error ? error : new Error(String(error)); return undefined; });
      if (issued === undefined) {
        const keeps = previous === undefined ? "" : `; instances keep the previous graph (${servedGraphText(previous)})`;
        parts.controllerReady = { type: RGD_CONDITIONS.controllerReady, status: "False", reason: "GraphRevisionFailed", message: `could not record the graph as a GraphRevision: ${failure?.message ?? "unknown error"}${keeps}` };
      } else {
        lastIssued = Math.max(lastIssued, issued.lastIssued);
        const entry: ServedGraph = { rgdName: name, rgdUid: rgd.metadata?.uid ?? "", generation, revision: issued.revision, graph: compiled.graph, instance: kind.instance, containment: containmentPolicyOf(rgd) };
        // Opt-in annotations do not bump the generation, but they change what instances may write.
        const changed = previous === undefined || previous.generation !== generation || previous.revision !== entry.revision || previous.rgdUid !== entry.rgdUid
          || !sameKind(previous.instance, entry.instance) || !jsonEqual(previous.containment, entry.containment);
        if (changed) await startServing(ctx, entry);
        parts.controllerReady = { type: RGD_CONDITIONS.controllerReady, status: "True", reason: "Running", message: "controller is running" };
        await pruneGraphRevisions(ctx, issued.live, issued.revision).catch((error: unknown) => {
          ctx.logger.warn({ rgd: name, err: error instanceof Error ? error.message : String(error) }, "GraphRevision retention failed; retried on the next reconcile");
        });
      }
    }
  }
  const status = rgdStatus(rgd, parts, graph ?? ctx.served.get(name)?.graph, ctx.now());
  await writeRgdStatus(ctx, rgd, lastIssued > 0 ? { ...status, lastIssuedRevision: lastIssued } : status);
  if (failure !== undefined) throw failure;
  // The status says why first; then the error backs off and retries (kro: KindUnready, return err).
  if (kindError !== undefined) throw kindError.error;
  // A child kind the API server does not serve yet may be a CRD on its way (kro retries too).
  if (compiled.issues.some((i) => i.code === UNKNOWN_KIND_CODE && i.severity === "error")) return { requeueAfterMs: UNKNOWN_KIND_RETRY_MS };
  return {};
}

function servedGraphText(served: ServedGraph): string {
  return served.revision === undefined ? `generation ${served.generation}` : `GraphRevision ${served.revision}, generation ${served.generation}`;
}

/**
 * The RGD's current spec cannot be served: the graph in memory keeps serving, or when there is
 * none (a restart) the newest GraphRevision that compiles, so instances are still reconciled and
 * their deletions complete. Also returns the revision high-water mark the listing showed.
 */
async function keepServing(ctx: ControllerContext, rgd: KubeObject, previous: ServedGraph | undefined): Promise<{ serving?: ServedGraph; lastIssued: number }> {
  if (previous !== undefined) return { serving: previous, lastIssued: 0 };
  const found = await latestValidRevision(ctx, rgd);
  if (found === undefined) return { lastIssued: 0 };
  const serving = await serveGraph(ctx, rgd, found.graph, found.generation, found.revision);
  return serving === undefined ? { lastIssued: found.lastIssued } : { serving, lastIssued: found.lastIssued };
}

/** Serves a fallback graph without recreating a generated CRD that is gone (no CRD, no instances to keep). */
async function serveGraph(ctx: ControllerContext, rgd: KubeObject, graph: CompiledGraph, generation: number, revision: number | undefined): Promise<ServedGraph | undefined> {
  if (graph.dialect === "cel") {
    try {
      await ctx.client.get(crdRef(graph.crd.metadata.name));
    } catch (error) {
      if (isNotFound(error)) return undefined; // no CRD, so no instances
      throw error;
    }
  }
  const kind = await ensureKind(ctx, rgd, graph);
  if (!kind.ok) return undefined;
  const entry: ServedGraph = { rgdName: rgd.metadata?.name ?? "", rgdUid: rgd.metadata?.uid ?? "", generation, ...(revision === undefined ? {} : { revision }), graph, instance: kind.instance, containment: containmentPolicyOf(rgd) };
  await startServing(ctx, entry);
  return entry;
}

async function failAuthorPolicy(ctx: ControllerContext, rgd: KubeObject, parts: RgdStatusParts, graph: CompiledGraph | undefined, message: string): Promise<never> {
  const failed = { ...parts, controllerReady: { type: RGD_CONDITIONS.controllerReady, status: "False" as const, reason: "AuthorPolicyFailed", message } };
  await writeRgdStatus(ctx, rgd, rgdStatus(rgd, failed, graph, ctx.now()));
  throw new Error(message);
}

/** ensureKind, but a CRD the API server rejects (or any failure) becomes KindReady=False with its message. */
async function ensureKindReporting(ctx: ControllerContext, rgd: KubeObject, graph: CompiledGraph): Promise<KindResult & { error?: unknown }> {
  try {
    return await ensureKind(ctx, rgd, graph);
  } catch (error) {
    const message = error instanceof ApiError ? error.serverMessage || error.message : error instanceof Error ? error.message : String(error);
    return { ok: false, reason: "Failed", message, error };
  }
}

async function ensureKind(ctx: ControllerContext, rgd: KubeObject, graph: CompiledGraph): Promise<KindResult> {
  const name = rgd.metadata?.name ?? "";
  const owner = ctx.served.forKind(graph.instance.group, graph.instance.kind);
  if (owner !== undefined && owner.rgdName !== name) {
    return { ok: false, reason: "Conflict", message: `kind ${graph.instance.kind}.${graph.instance.group} is already served by ResourceGraphDefinition "${owner.rgdName}"` };
  }
  if (graph.dialect === "template") return attachUserCrd(ctx, rgd, graph);
  const result = await installCrd(ctx.client, graph.crd, { rgdName: name, rgdUid: rgd.metadata?.uid ?? "", kroVersion: ctx.kroVersion, allowBreakingChanges: allowsBreakingChanges(rgd) });
  if (!result.ok) return { ok: false, reason: result.reason, message: result.message };
  const { group, version, kind, plural, scope } = graph.instance;
  return { ok: true, instance: { apiVersion: group === "" ? version : `${group}/${version}`, group, version, kind, plural, namespaced: scope === "Namespaced" } };
}

function sameKind(a: InstanceKind, b: InstanceKind): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.plural === b.plural;
}

async function ensureFinalizer(ctx: ControllerContext, rgd: KubeObject): Promise<KubeObject> {
  const finalizers = rgd.metadata?.finalizers ?? [];
  if (finalizers.includes(FINALIZER)) return rgd;
  return ctx.client.patch(rgdRef(rgd.metadata?.name ?? ""), { metadata: { finalizers: [...finalizers, FINALIZER], resourceVersion: rgd.metadata?.resourceVersion } });
}

/**
 * Deleting an RGD never strands instances: while any instance of its kind exists, the RGD keeps
 * its finalizer, keeps serving (so instance deletions run their normal, wave-by-wave course) and
 * says what it waits for. Only then does it stop serving and let go. The CRD stays unless
 * --allow-crd-deletion (and then only a CRD this RGD generated).
 */
async function deleteRgd(ctx: ControllerContext, rgd: KubeObject): Promise<ReconcileResult> {
  const name = rgd.metadata?.name ?? "";
  const served = ctx.served.get(name);
  const instances = ctx.instanceLeases.get(name)?.informer.store.list() ?? [];
  if (served !== undefined && instances.length > 0) {
    const shown = instances.slice(0, 5).map((i) => `${i.metadata?.namespace === undefined ? "" : `${i.metadata.namespace}/`}${i.metadata?.name ?? ""}`).join(", ");
    const message = `deletion waits for ${instances.length} ${served.instance.kind} instance(s) to be deleted: ${shown}${instances.length > 5 ? ", …" : ""}`;
    const blocked = { type: RGD_CONDITIONS.ready, status: "False" as const, reason: "InstancesExist", message };
    const previous = (rgd.status as { conditions?: unknown[] } | undefined)?.conditions ?? [];
    const others = previous.filter((c) => (c as { type?: string }).type !== RGD_CONDITIONS.ready);
    const conditions = [...others, stamp(blocked, currentConditions(rgd), rgd.metadata?.generation, ctx.now())];
    await writeRgdStatus(ctx, rgd, { ...(rgd.status as Record<string, unknown> | undefined), state: RGD_STATES.inactive, conditions });
    return { requeueAfterMs: 2000 };
  }
  await stopServing(ctx, name);
  // Owned by the RGD too: garbage collection removes what this cannot (e.g. RBAC revoked).
  await removeAuthorPolicy(ctx.client, rgd.metadata?.uid ?? "").catch((error: unknown) => { ctx.logger.warn({ rgd: name, err: error instanceof Error ? error.message : String(error) }, "could not remove the instance-author policy"); });
  if (ctx.options.allowCrdDeletion && served?.graph.dialect === "cel") {
    const crdName = served.graph.crd.metadata.name;
    try {
      const crd = await ctx.client.get(crdRef(crdName));
      if (labelMatches(crd.metadata?.labels?.[LABELS.rgdName], name)) await ctx.client.delete(crdRef(crdName));
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  await deleteGraphRevisions(ctx, rgd);
  const finalizers = rgd.metadata?.finalizers ?? [];
  if (finalizers.includes(FINALIZER)) {
    await ctx.client.patch(rgdRef(name), { metadata: { finalizers: finalizers.filter((f) => f !== FINALIZER), resourceVersion: rgd.metadata?.resourceVersion } });
  }
  return {};
}

/**
 * After a restart the registry is empty: to know whether a deleted RGD still has instances (and
 * to process their deletions) serve its graph again — the current spec, or when that is invalid
 * the newest GraphRevision — without recreating a CRD that is gone.
 */
async function serveForDeletion(ctx: ControllerContext, rgd: KubeObject): Promise<void> {
  const compiled = await ctx.compile(rgd);
  if (compiled.graph === undefined || hasErrors(compiled.issues)) {
    await keepServing(ctx, rgd, undefined);
    return;
  }
  await serveGraph(ctx, rgd, compiled.graph, rgd.metadata?.generation ?? 0, undefined);
}

async function writeRgdStatus(ctx: ControllerContext, rgd: KubeObject, status: Record<string, unknown>): Promise<void> {
  if (jsonEqual(status, rgd.status)) return;
  await ctx.client.updateStatus({ ...rgd, status });
  recordConditionChanges(ctx, rgd, rgd.status, status);
}
