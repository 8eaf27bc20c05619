/**
 * GraphRevisions on the cluster (kro v0.9): before a new graph is served, the RGD spec that
 * produced it is recorded as an immutable, numbered GraphRevision owned by the RGD. After a
 * restart, an RGD whose current spec is invalid is served from its newest revision that still
 * compiles, so its instances keep converging and can be deleted. Retention keeps the newest N.
 * The rules (names, numbers, selection) are pure, in graph-revision-policy.ts.
 */
import { FIELD_MANAGERS, GRAPH_REVISION, LABELS, type GraphRevision } from "../../api/index.js";
import { formatIssue, hasErrors } from "../../diag/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import { isConflict, isNotFound, type KubeClient, type KubeObject } from "../../kube/index.js";
import { stamp } from "../../runtime/index.js";
import type { ControllerContext } from "../context/index.js";
import { recordEvent } from "../context/index.js";
import {
  isOwnedBy,
  lastIssuedRevision,
  newGraphRevision,
  revisionFor,
  revisionSet,
  revisionsToPrune,
  rgdOwnerReference,
  snapshotRgd,
  withRgdOwner,
  type RevisionSet,
} from "./graph-revision-policy.js";
import { graphShape } from "./rgd-status.js";

const grRef = (name: string) => ({ apiVersion: GRAPH_REVISION.apiVersion, kind: GRAPH_REVISION.kind, name });

/** Every revision of an RGD name, read from the API server (never a cache: numbers must not repeat). */
export async function listGraphRevisions(client: KubeClient, rgdName: string): Promise<RevisionSet> {
  const list = await client.list(GRAPH_REVISION.apiVersion, GRAPH_REVISION.kind, {
    labelSelector: `${LABELS.rgdName}=${rgdName}`,
  });
  return revisionSet(list.items, rgdName);
}

export interface IssuedRevision {
  /** The revision that records the spec being served. */
  readonly revision: number;
  /** The RGD's new status.lastIssuedRevision. */
  readonly lastIssued: number;
  /** The live revisions afterwards, newest first (for retention). */
  readonly live: readonly GraphRevision[];
}

/**
 * The revision of the RGD's current spec, which compiled to `graph`: the newest revision when it
 * already holds this spec, else a new one numbered above every number used so far. Revisions
 * left by a deleted RGD of the same name are adopted first (owner reference re-pointed), as kro does.
 */
export async function ensureGraphRevision(
  ctx: ControllerContext,
  rgd: KubeObject,
  graph: CompiledGraph,
): Promise<IssuedRevision> {
  const name = rgd.metadata?.name ?? "";
  const set = await listGraphRevisions(ctx.client, name);
  const live = await adoptRevisions(ctx.client, set.live, name, rgd.metadata?.uid ?? "");
  const lastIssued = Math.max(lastIssuedRevision(rgd), set.highest);
  const wanted = revisionFor(set, rgd.spec, lastIssued);
  if (!wanted.issue) return { revision: wanted.revision, lastIssued, live };
  // AlreadyExists (another controller issued the same number meanwhile) fails this reconcile; the retry re-lists.
  const created = (await ctx.client.create(
    newGraphRevision(rgd, wanted.revision, ctx.kroVersion) as unknown as KubeObject,
    { fieldManager: FIELD_MANAGERS.controller },
  )) as unknown as GraphRevision;
  await markVerified(ctx, created, graph);
  await recordEvent(
    ctx,
    rgd,
    "GraphRevisionIssued",
    `issued GraphRevision ${created.metadata.name} (revision ${wanted.revision}, generation ${rgd.metadata?.generation ?? 0})`,
  );
  return { revision: wanted.revision, lastIssued: wanted.revision, live: [created, ...live] };
}

async function adoptRevisions(
  client: KubeClient,
  live: readonly GraphRevision[],
  rgdName: string,
  rgdUid: string,
): Promise<GraphRevision[]> {
  const desired = rgdOwnerReference(rgdName, rgdUid);
  const result: GraphRevision[] = [];
  for (const revision of live) {
    if (isOwnedBy(revision, rgdUid)) {
      result.push(revision);
      continue;
    }
    // PUT with the listed resourceVersion: a concurrent change fails with a conflict and is retried.
    const metadata = {
      ...revision.metadata,
      ownerReferences: withRgdOwner(revision.metadata.ownerReferences, desired),
    };
    result.push(
      (await client.replace({ ...revision, metadata } as unknown as KubeObject, {
        fieldManager: FIELD_MANAGERS.controller,
      })) as unknown as GraphRevision,
    );
  }
  return result;
}

/** kro's GraphRevision status: GraphVerified and Ready, plus the graph's order (what `kubectl get gr` shows). */
async function markVerified(ctx: ControllerContext, revision: GraphRevision, graph: CompiledGraph): Promise<void> {
  const now = ctx.now();
  const verified = stamp(
    { type: "GraphVerified", status: "True", reason: "Verified", message: "graph revision compiled and verified" },
    new Map(),
    1,
    now,
  );
  const ready = stamp({ type: "Ready", status: "True", reason: "Ready", message: "" }, new Map(), 1, now);
  try {
    await ctx.client.updateStatus({
      ...revision,
      status: { conditions: [verified, ready], ...graphShape(graph) },
    } as unknown as KubeObject);
  } catch (error) {
    // Cosmetic: the revision itself is recorded, and serving must not wait on its status.
    ctx.logger.warn(
      { graphRevision: revision.metadata.name, err: error instanceof Error ? error.message : String(error) },
      "could not write GraphRevision status",
    );
  }
}

/** Retention (--rgd-max-graph-revisions): the oldest revisions beyond the newest N go, never the served one nor one in use. */
export async function pruneGraphRevisions(
  ctx: ControllerContext,
  live: readonly GraphRevision[],
  served: number,
  inUse?: ReadonlySet<number>,
): Promise<void> {
  for (const revision of revisionsToPrune(live, ctx.options.maxGraphRevisions, served, inUse))
    await deleteRevision(ctx.client, revision);
}

/**
 * The RGD is being deleted and no instance is left: its revisions go before its finalizer does.
 * The owner reference would let the garbage collector do it too, but not on a cluster without
 * one. `kubectl delete --cascade=orphan` keeps them, for a recreated RGD to adopt (as in kro):
 * the API server adds the "orphan" finalizer, and the garbage collector strips our owner
 * reference from each revision before it removes that finalizer — so a revision is ours to
 * delete only while the finalizer is absent and the revision still names this RGD as owner.
 */
export async function deleteGraphRevisions(ctx: ControllerContext, rgd: KubeObject): Promise<void> {
  if (rgd.metadata?.finalizers?.includes(ORPHAN_FINALIZER) === true) return;
  const set = await listGraphRevisions(ctx.client, rgd.metadata?.name ?? "");
  for (const revision of set.live) {
    if (isOwnedBy(revision, rgd.metadata?.uid ?? "")) await deleteRevision(ctx.client, revision);
  }
}

/** Set by the API server on an object deleted with propagationPolicy=Orphan. */
const ORPHAN_FINALIZER = "orphan";

async function deleteRevision(client: KubeClient, revision: GraphRevision): Promise<void> {
  try {
    await client.delete(
      grRef(revision.metadata.name),
      revision.metadata.uid === undefined ? {} : { preconditions: { uid: revision.metadata.uid } },
    );
  } catch (error) {
    // Gone already, or replaced by a newer object of the same name: nothing of ours to delete.
    if (!isNotFound(error) && !isConflict(error)) throw error;
  }
}

export interface RevisionGraph {
  readonly revision: number;
  /** The RGD generation the snapshot was taken at. */
  readonly generation: number;
  readonly graph: CompiledGraph;
  /** The high-water mark the listing showed, for status.lastIssuedRevision. */
  readonly lastIssued: number;
}

/**
 * The newest revision of the RGD whose snapshot compiles today (a controller upgrade may reject
 * an old snapshot: then the one before it), or undefined when none does.
 */
export async function latestValidRevision(ctx: ControllerContext, rgd: KubeObject): Promise<RevisionGraph | undefined> {
  const name = rgd.metadata?.name ?? "";
  const set = await listGraphRevisions(ctx.client, name);
  const lastIssued = Math.max(lastIssuedRevision(rgd), set.highest);
  for (const revision of set.live) {
    const compiled = await ctx.compile(snapshotRgd(rgd, revision));
    if (compiled.graph !== undefined && !hasErrors(compiled.issues)) {
      return {
        revision: revision.spec.revision,
        generation: revision.spec.snapshot.generation,
        graph: compiled.graph,
        lastIssued,
      };
    }
    const issues = compiled.issues
      .filter((i) => i.severity === "error")
      .map(formatIssue)
      .join("; ");
    ctx.logger.warn(
      { rgd: name, graphRevision: revision.metadata.name, issues },
      "GraphRevision snapshot no longer compiles; trying an older one",
    );
  }
  return undefined;
}

/**
 * The graphs of these live revisions, for instances a rollout keeps on an older one: compiled from
 * each snapshot, except those already known (a snapshot is immutable, so a graph compiled once
 * stays right). A snapshot that no longer compiles is left out; its instances wait until the
 * rollout moves them.
 */
export async function revisionGraphs(
  ctx: ControllerContext,
  rgd: KubeObject,
  live: readonly GraphRevision[],
  known: ReadonlyMap<number, CompiledGraph> = new Map(),
): Promise<Map<number, CompiledGraph>> {
  const graphs = new Map<number, CompiledGraph>();
  for (const revision of live) {
    const number = revision.spec.revision;
    const cached = known.get(number);
    if (cached !== undefined) {
      graphs.set(number, cached);
      continue;
    }
    const compiled = await ctx.compile(snapshotRgd(rgd, revision));
    if (compiled.graph !== undefined && !hasErrors(compiled.issues)) graphs.set(number, compiled.graph);
    else
      ctx.logger.warn(
        { rgd: rgd.metadata?.name, graphRevision: revision.metadata.name },
        "GraphRevision snapshot no longer compiles; instances assigned to it wait",
      );
  }
  return graphs;
}
