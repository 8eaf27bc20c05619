/**
 * The RGD reconcile of a replica that is not the leader, with instance sharding: it writes
 * nothing (no finalizer, CRD, GraphRevision, policy or status — those stay with the leader), it
 * only *serves* the graph so this replica can reconcile the instances of the shards it holds.
 *
 * It serves the current spec once the leader reports having served that very generation
 * (KindReady and ControllerReady True at `metadata.generation`), so no replica runs a graph whose
 * CRD, author policy and GraphRevision the leader has not put in place. Until then it keeps the
 * graph it serves, or — after a start, with none in memory — the newest GraphRevision that
 * compiles, as the leader itself would after a restart, and looks again shortly.
 */
import { attachToCrd, containmentPolicyOf, rgdAuthorOf, type CompiledGraph } from "../../graph/index.js";
import { hasErrors } from "../../diag/index.js";
import { isNotFound, type KubeObject } from "../../kube/index.js";
import { KRO_API_VERSION, RGD } from "../../api/index.js";
import { currentConditions } from "../../runtime/index.js";
import type { ControllerContext } from "../context/index.js";
import type { ReconcileResult } from "../loop/index.js";
import { CRD_TYPE, crdRef, isEstablished } from "../crds/index.js";
import { latestValidRevision } from "./graph-revisions.js";
import { lastIssuedRevision } from "./graph-revision-policy.js";
import { RGD_CONDITIONS } from "./rgd-status.js";
import { startServing, stopServing } from "./instance-kinds.js";
import type { InstanceKind, ServedGraph } from "../context/index.js";
import { jsonEqual } from "../context/index.js";

/** How soon a follower looks again while the leader has not caught up with the spec. */
export const FOLLOW_RETRY_MS = 1000;
/** …and while the leader has looked at this generation but does not serve it (invalid, kind not ready). */
export const FOLLOW_SLOW_RETRY_MS = 10_000;

export async function followRgd(ctx: ControllerContext, name: string): Promise<ReconcileResult> {
  let rgd: KubeObject;
  try {
    rgd = await ctx.client.get({ apiVersion: KRO_API_VERSION, kind: RGD.kind, name });
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await stopServing(ctx, name);
    return {};
  }
  const previous = ctx.served.get(name);
  const generation = rgd.metadata?.generation ?? 0;
  if (leaderServes(rgd, generation)) {
    const compiled = await ctx.compile(rgd);
    if (compiled.graph !== undefined && !hasErrors(compiled.issues)) {
      const entry = await servedEntry(ctx, rgd, compiled.graph, generation, lastIssuedRevision(rgd) || undefined);
      if (entry !== undefined) {
        if (!sameServing(previous, entry)) await serve(ctx, entry);
        return {};
      }
    }
  }
  if (previous === undefined) {
    // Nothing served yet (a start): the leader's last recorded graph, as the leader does after a restart.
    const found = await latestValidRevision(ctx, rgd);
    const entry =
      found === undefined ? undefined : await servedEntry(ctx, rgd, found.graph, found.generation, found.revision);
    if (entry !== undefined) await serve(ctx, entry);
  }
  // The leader's status writes are no event here (only generations are): look again, slowly once
  // the leader has judged this generation.
  const judged = currentConditions(rgd).get(RGD_CONDITIONS.controllerReady)?.observedGeneration === generation;
  return { requeueAfterMs: judged ? FOLLOW_SLOW_RETRY_MS : FOLLOW_RETRY_MS };
}

/**
 * Serves the graph and starts its child kinds' informers now (a leader starts them at its first
 * reconcile): a standby, or a replica that acquires a shard, then works from warm caches.
 * Kinds it may not watch are the leader's to report; here they are just not cached.
 */
async function serve(ctx: ControllerContext, entry: ServedGraph): Promise<void> {
  await startServing(ctx, entry);
  await ctx.watches.ensure(entry.graph);
}

/** The leader served this generation: its kind is ready and the controller runs it. */
function leaderServes(rgd: KubeObject, generation: number): boolean {
  const conditions = currentConditions(rgd);
  const current = (type: string) =>
    conditions.get(type)?.status === "True" && conditions.get(type)?.observedGeneration === generation;
  return current(RGD_CONDITIONS.kindReady) && current(RGD_CONDITIONS.controllerReady);
}

/** The entry to serve, when the instance kind exists (read only: the leader creates it). */
async function servedEntry(
  ctx: ControllerContext,
  rgd: KubeObject,
  graph: CompiledGraph,
  generation: number,
  revision: number | undefined,
): Promise<ServedGraph | undefined> {
  const instance = await existingKind(ctx, graph);
  if (instance === undefined) return undefined;
  const owner = ctx.served.forKind(instance.group, instance.kind);
  if (owner !== undefined && owner.rgdName !== rgd.metadata?.name) return undefined;
  return {
    rgdName: rgd.metadata?.name ?? "",
    rgdUid: rgd.metadata?.uid ?? "",
    generation,
    ...(revision === undefined ? {} : { revision }),
    graph,
    instance,
    containment: containmentPolicyOf(rgd),
    author: rgdAuthorOf(rgd),
  };
}

async function existingKind(ctx: ControllerContext, graph: CompiledGraph): Promise<InstanceKind | undefined> {
  const { group, version, kind } = graph.instance;
  if (graph.dialect === "cel") {
    try {
      const crd = await ctx.client.get(crdRef(graph.crd.metadata.name));
      if (!isEstablished(crd)) return undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    const { plural, scope } = graph.instance;
    return {
      apiVersion: group === "" ? version : `${group}/${version}`,
      group,
      version,
      kind,
      plural,
      namespaced: scope === "Namespaced",
    };
  }
  const crds = await ctx.client.list(CRD_TYPE.apiVersion, CRD_TYPE.kind);
  for (const crd of crds.items) {
    const attach = attachToCrd(crd, graph.instance, graph.rollout !== undefined);
    // Status storage still missing: the leader adds it; wait for that.
    if (attach.ok && attach.apply === undefined)
      return {
        apiVersion: `${group}/${version}`,
        group,
        version,
        kind,
        plural: attach.plural,
        namespaced: attach.scope === "Namespaced",
      };
  }
  return undefined;
}

function sameServing(previous: ServedGraph | undefined, next: ServedGraph): boolean {
  return (
    previous !== undefined &&
    previous.generation === next.generation &&
    previous.revision === next.revision &&
    previous.rgdUid === next.rgdUid &&
    previous.instance.apiVersion === next.instance.apiVersion &&
    previous.instance.kind === next.instance.kind &&
    jsonEqual(previous.containment, next.containment)
  );
}
