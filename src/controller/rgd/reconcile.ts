/**
 * One RGD reconcile (docs/reference/kro-reference.md §6.2), top to bottom:
 *
 *   observe  — the RGD (gone: stop serving; being deleted: rgd-deletion.ts), our finalizer
 *   compile  — both dialects into one graph (pure, through ctx.compile)
 *   serve    — invalid: keep the last good graph serving (rgd-serving.ts); valid: the author
 *              policy, the instance kind, a GraphRevision, then serve its instances
 *   status   — the RGD's conditions, written only when they differ (rgd-status-write.ts)
 *
 * Ownership conflicts are reported, not fought.
 */
import { FINALIZER, type GraphRevision } from "../../api/index.js";
import { formatIssue, hasErrors, type Issue } from "../../diag/index.js";
import { isNotFound, type KubeObject } from "../../kube/index.js";
import { rgdAuthorOf, type CompiledGraph } from "../../graph/index.js";
import type { ReconcileResult } from "../loop/index.js";
import type { ControllerContext, ServedGraph } from "../context/index.js";
import { jsonEqual } from "../context/index.js";
import { ensureAuthorPolicy, verifyDelegation } from "../author-policy/index.js";
import { currentRollout, RGD_CONDITIONS, rgdStatus, unknownCondition, type RgdStatusParts } from "./rgd-status.js";
import { planRolloutStep, writeMoves } from "./rollout-step.js";
import { startServing, stopServing } from "./instance-kinds.js";
import { ensureGraphRevision, pruneGraphRevisions, revisionGraphs } from "./graph-revisions.js";
import { lastIssuedRevision } from "./graph-revision-policy.js";
import { deleteRgd, serveForDeletion } from "./rgd-deletion.js";
import { ensureKindReporting, keepServing, sameKind, servedGraphText } from "./rgd-serving.js";
import { boundedMessage, failAuthorPolicy, rgdRef, writeRgdStatus } from "./rgd-status-write.js";

const UNKNOWN_KIND_CODE = "rgd.unknown-kind";
const UNKNOWN_KIND_RETRY_MS = 5000;

type MutableParts = { -readonly [K in keyof RgdStatusParts]: RgdStatusParts[K] };

/** What serving concluded: the status parts, the graph the status describes, and errors to retry on. */
interface ServeOutcome {
  readonly parts: MutableParts;
  readonly graph: CompiledGraph | undefined;
  readonly lastIssued: number;
  /** A GraphRevision write failed: status first, then retried with backoff. */
  readonly failure?: Error;
  /** The kind could not be installed: status first, then retried with backoff (kro: KindUnready). */
  readonly kindError?: { readonly error: unknown };
  /** Under a rollout, retention waits for the rollout step: it must keep the revisions instances use. */
  readonly retention?: { readonly live: readonly GraphRevision[]; readonly served: number };
}

export async function reconcileRgd(ctx: ControllerContext, name: string): Promise<ReconcileResult> {
  // 1. Observe.
  const observed = await observeRgd(ctx, name);
  if (observed === undefined) {
    await stopServing(ctx, name);
    return {};
  }
  if (observed.metadata?.deletionTimestamp !== undefined) {
    if (ctx.served.get(name) === undefined) await serveForDeletion(ctx, observed);
    return deleteRgd(ctx, observed);
  }
  const rgd = await ensureFinalizer(ctx, observed);

  // 2. Compile.
  const compiled = await ctx.compile(rgd);

  // 3. Serve: the last good graph when this one is invalid, else this one.
  const outcome =
    compiled.graph === undefined || hasErrors(compiled.issues)
      ? await serveInvalid(ctx, rgd, compiled.issues)
      : await serveValid(ctx, rgd, compiled.graph);

  // A rollout policy: plan which instances move (rollout-step.ts); its verdicts go in the status below.
  const served = ctx.served.get(name);
  const rollout =
    served === undefined || outcome.failure !== undefined ? undefined : await planRolloutStep(ctx, rgd, served);
  const rolloutParts =
    rollout === undefined
      ? served?.graph.rollout === undefined
        ? undefined
        : currentRollout(rgd)
      : { status: rollout.status, condition: rollout.condition };

  // 4. Status, and when to look again.
  const status = rgdStatus(rgd, { ...outcome.parts, rollout: rolloutParts }, outcome.graph ?? served?.graph, ctx.now());
  await writeRgdStatus(
    ctx,
    rgd,
    outcome.lastIssued > 0 ? { ...status, lastIssuedRevision: outcome.lastIssued } : status,
  );
  if (outcome.failure !== undefined) throw outcome.failure;
  if (outcome.kindError !== undefined) throw outcome.kindError.error;
  // Moves only once the verdicts that cause them are recorded.
  if (rollout !== undefined) await writeMoves(ctx, name, rollout);
  if (outcome.retention !== undefined && rollout !== undefined)
    await retainRevisions(ctx, name, outcome.retention.live, outcome.retention.served, rollout.inUse);
  // A child kind the API server does not serve yet may be a CRD on its way (kro retries too).
  if (compiled.issues.some((i) => i.code === UNKNOWN_KIND_CODE && i.severity === "error"))
    return { requeueAfterMs: Math.min(UNKNOWN_KIND_RETRY_MS, rollout?.requeueAfterMs ?? UNKNOWN_KIND_RETRY_MS) };
  return rollout?.requeueAfterMs === undefined ? {} : { requeueAfterMs: rollout.requeueAfterMs };
}

async function observeRgd(ctx: Pick<ControllerContext, "client">, name: string): Promise<KubeObject | undefined> {
  try {
    return await ctx.client.get(rgdRef(name));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function ensureFinalizer(ctx: Pick<ControllerContext, "client">, rgd: KubeObject): Promise<KubeObject> {
  const finalizers = rgd.metadata?.finalizers ?? [];
  if (finalizers.includes(FINALIZER)) return rgd;
  return ctx.client.patch(rgdRef(rgd.metadata?.name ?? ""), {
    metadata: { finalizers: [...finalizers, FINALIZER], resourceVersion: rgd.metadata?.resourceVersion },
  });
}

function initialParts(): MutableParts {
  return {
    graphAccepted: unknownCondition(RGD_CONDITIONS.graphAccepted),
    kindReady: unknownCondition(RGD_CONDITIONS.kindReady),
    controllerReady: unknownCondition(RGD_CONDITIONS.controllerReady),
  };
}

/**
 * The current spec does not compile: the RGD is not accepted, but the last good graph keeps
 * serving — say which one and why instead of pretending the kind is gone.
 */
async function serveInvalid(ctx: ControllerContext, rgd: KubeObject, issues: readonly Issue[]): Promise<ServeOutcome> {
  const parts = initialParts();
  const message = boundedMessage(issues.filter((i) => i.severity === "error").map(formatIssue));
  parts.graphAccepted = {
    type: RGD_CONDITIONS.graphAccepted,
    status: "False",
    reason: "InvalidResourceGraph",
    message,
  };
  const { serving, lastIssued: seen } = await keepServing(ctx, rgd, ctx.served.get(rgd.metadata?.name ?? ""));
  const lastIssued = Math.max(lastIssuedRevision(rgd), seen);
  if (serving === undefined) {
    parts.controllerReady = {
      type: RGD_CONDITIONS.controllerReady,
      status: "False",
      reason: "NoValidGraph",
      message: "no graph is served: the current spec is invalid and no GraphRevision of this RGD compiles",
    };
    return { parts, graph: undefined, lastIssued };
  }
  const which = servedGraphText(serving);
  const generation = rgd.metadata?.generation ?? 0;
  parts.kindReady = {
    type: RGD_CONDITIONS.kindReady,
    status: "True",
    reason: "Ready",
    message: `kind ${serving.instance.kind} is served by the last valid graph (${which}) because the current spec (generation ${generation}) is invalid`,
  };
  parts.controllerReady = {
    type: RGD_CONDITIONS.controllerReady,
    status: "True",
    reason: "Running",
    message: `controller is running the last valid graph (${which}); the current spec is invalid`,
  };
  return { parts, graph: undefined, lastIssued };
}

/** A valid graph: author policy, instance kind, GraphRevision, then its instances are served. */
async function serveValid(ctx: ControllerContext, rgd: KubeObject, graph: CompiledGraph): Promise<ServeOutcome> {
  const name = rgd.metadata?.name ?? "";
  const previous = ctx.served.get(name);
  const parts = initialParts();
  let lastIssued = lastIssuedRevision(rgd);
  parts.graphAccepted = {
    type: RGD_CONDITIONS.graphAccepted,
    status: "True",
    reason: "Valid",
    message: "resource graph and schema are valid",
  };
  // Fail closed: no instance is served without the instance-author policy. kro generates the
  // CEL dialect's CRD, so there the policy goes first: the API server loads it while the CRD
  // becomes established, and no instance can be admitted unchecked (the user's own CRD of the
  // template dialect exists already; its plural is known only from the cluster).
  // A delegation holds only if its recorded author holds the rights (delegation-verification.ts).
  const delegation = await verifyDelegation(ctx, rgd, graph);
  parts.delegation = delegation.condition;
  const early =
    graph.dialect === "cel"
      ? await ensureAuthorPolicy(
          ctx,
          rgd,
          graph,
          { ...graph.instance, namespaced: graph.instance.scope === "Namespaced" },
          delegation.policy,
        )
      : undefined;
  if (early?.ok === false) await failAuthorPolicy(ctx, rgd, parts, graph, early.message);

  const kind = await ensureKindReporting(ctx, rgd, graph);
  if (!kind.ok) {
    parts.kindReady = { type: RGD_CONDITIONS.kindReady, status: "False", reason: kind.reason, message: kind.message };
    // E.g. a refused breaking change after a restart: the kind as last served still works.
    const { serving, lastIssued: seen } = await keepServing(ctx, rgd, previous);
    if (serving !== undefined) {
      parts.controllerReady = {
        type: RGD_CONDITIONS.controllerReady,
        status: "True",
        reason: "Running",
        message: `controller is running the last valid graph (${servedGraphText(serving)}) because the kind of the current spec is not ready`,
      };
    }
    return {
      parts,
      graph,
      lastIssued: Math.max(lastIssued, seen),
      ...("error" in kind ? { kindError: { error: kind.error } } : {}),
    };
  }
  parts.kindReady = {
    type: RGD_CONDITIONS.kindReady,
    status: "True",
    reason: "Ready",
    message: `kind ${kind.instance.kind} has been accepted and ready`,
  };
  const authz = early ?? (await ensureAuthorPolicy(ctx, rgd, graph, kind.instance, delegation.policy));
  if (!authz.ok) await failAuthorPolicy(ctx, rgd, parts, graph, authz.message);

  // Recorded before it is served: after a restart, the newest revision is the graph instances ran on.
  let failure: Error | undefined;
  const issued = await ensureGraphRevision(ctx, rgd, graph).catch((error: unknown) => {
    failure = error instanceof Error ? error : new Error(String(error));
    return undefined;
  });
  if (issued === undefined) {
    const keeps = previous === undefined ? "" : `; instances keep the previous graph (${servedGraphText(previous)})`;
    parts.controllerReady = {
      type: RGD_CONDITIONS.controllerReady,
      status: "False",
      reason: "GraphRevisionFailed",
      message: `could not record the graph as a GraphRevision: ${failure?.message ?? "unknown error"}${keeps}`,
    };
    return { parts, graph, lastIssued, ...(failure === undefined ? {} : { failure }) };
  }
  lastIssued = Math.max(lastIssued, issued.lastIssued);
  const generation = rgd.metadata?.generation ?? 0;
  // With a rollout policy, instances may run older revisions: their graphs are kept beside this one.
  const revisions =
    graph.rollout === undefined
      ? undefined
      : await revisionGraphs(
          ctx,
          rgd,
          issued.live.filter((r) => r.spec.revision !== issued.revision),
          previous?.revisions,
        ).then((graphs) => graphs.set(issued.revision, graph));
  const entry: ServedGraph = {
    rgdName: name,
    rgdUid: rgd.metadata?.uid ?? "",
    generation,
    revision: issued.revision,
    graph,
    ...(revisions === undefined ? {} : { revisions }),
    instance: kind.instance,
    containment: delegation.policy,
    author: rgdAuthorOf(rgd),
  };
  // Opt-in annotations do not bump the generation, but they change what instances may write.
  const changed =
    previous === undefined ||
    previous.generation !== generation ||
    previous.revision !== entry.revision ||
    previous.rgdUid !== entry.rgdUid ||
    !sameKind(previous.instance, entry.instance) ||
    !sameRevisions(previous.revisions, entry.revisions) ||
    !jsonEqual(previous.containment, entry.containment) ||
    !jsonEqual(previous.author, entry.author);
  if (changed) await startServing(ctx, entry);
  parts.controllerReady = {
    type: RGD_CONDITIONS.controllerReady,
    status: "True",
    reason: "Running",
    message: "controller is running",
  };
  if (graph.rollout !== undefined)
    return { parts, graph, lastIssued, retention: { live: issued.live, served: issued.revision } };
  await retainRevisions(ctx, name, issued.live, issued.revision);
  return { parts, graph, lastIssued };
}

async function retainRevisions(
  ctx: ControllerContext,
  name: string,
  live: readonly GraphRevision[],
  served: number,
  inUse?: ReadonlySet<number>,
): Promise<void> {
  await pruneGraphRevisions(ctx, live, served, inUse).catch((error: unknown) => {
    ctx.logger.warn(
      { rgd: name, err: error instanceof Error ? error.message : String(error) },
      "GraphRevision retention failed; retried on the next reconcile",
    );
  });
}

/** The same revisions kept for a rollout (their graphs are immutable, so the numbers say it all). */
function sameRevisions(
  a: ReadonlyMap<number, CompiledGraph> | undefined,
  b: ReadonlyMap<number, CompiledGraph> | undefined,
): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.size === b.size && [...a.keys()].every((n) => b.has(n));
}
