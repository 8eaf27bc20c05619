/**
 * Serving an RGD's graph: install (CEL dialect) or attach (template dialect) its instance kind,
 * and — when the current spec cannot be served — keep serving the last good graph, from memory
 * or after a restart from the newest GraphRevision that compiles.
 */
import { ApiError, isNotFound, type KubeObject } from "../../kube/index.js";
import { containmentPolicyOf, rgdAuthorOf, type CompiledGraph } from "../../graph/index.js";
import { recordEvent, type ControllerContext, type InstanceKind, type ServedGraph } from "../context/index.js";
import { allowsBreakingChanges, attachUserCrd, crdRef, installCrd, type KindResult } from "../crds/index.js";
import { startServing } from "./instance-kinds.js";
import { latestValidRevision } from "./graph-revisions.js";
import { needsMigration, withConversionWebhook } from "../conversion/index.js";

export function servedGraphText(served: ServedGraph): string {
  return served.revision === undefined
    ? `generation ${served.generation}`
    : `GraphRevision ${served.revision}, generation ${served.generation}`;
}

/**
 * The RGD's current spec cannot be served: the graph in memory keeps serving, or when there is
 * none (a restart) the newest GraphRevision that compiles, so instances are still reconciled and
 * their deletions complete. Also returns the revision high-water mark the listing showed.
 */
export async function keepServing(
  ctx: ControllerContext,
  rgd: KubeObject,
  previous: ServedGraph | undefined,
): Promise<{ serving?: ServedGraph; lastIssued: number }> {
  if (previous !== undefined) return { serving: previous, lastIssued: 0 };
  const found = await latestValidRevision(ctx, rgd);
  if (found === undefined) return { lastIssued: 0 };
  const serving = await serveGraph(ctx, rgd, found.graph, found.generation, found.revision);
  return serving === undefined ? { lastIssued: found.lastIssued } : { serving, lastIssued: found.lastIssued };
}

/** Serves a fallback graph without recreating a generated CRD that is gone (no CRD, no instances to keep). */
export async function serveGraph(
  ctx: ControllerContext,
  rgd: KubeObject,
  graph: CompiledGraph,
  generation: number,
  revision: number | undefined,
): Promise<ServedGraph | undefined> {
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
  const entry: ServedGraph = {
    rgdName: rgd.metadata?.name ?? "",
    rgdUid: rgd.metadata?.uid ?? "",
    generation,
    ...(revision === undefined ? {} : { revision }),
    graph,
    instance: kind.instance,
    containment: containmentPolicyOf(rgd),
    author: rgdAuthorOf(rgd),
  };
  await startServing(ctx, entry);
  return entry;
}

/** ensureKind, but a CRD the API server rejects (or any failure) becomes KindReady=False with its message. */
export async function ensureKindReporting(
  ctx: ControllerContext,
  rgd: KubeObject,
  graph: CompiledGraph,
): Promise<KindResult & { error?: unknown }> {
  try {
    return await ensureKind(ctx, rgd, graph);
  } catch (error) {
    const message =
      error instanceof ApiError
        ? error.serverMessage || error.message
        : error instanceof Error
          ? error.message
          : String(error);
    return { ok: false, reason: "Failed", message, error };
  }
}

export async function ensureKind(ctx: ControllerContext, rgd: KubeObject, graph: CompiledGraph): Promise<KindResult> {
  const name = rgd.metadata?.name ?? "";
  const owner = ctx.served.forKind(graph.instance.group, graph.instance.kind);
  if (owner !== undefined && owner.rgdName !== name) {
    return {
      ok: false,
      reason: "Conflict",
      message: `kind ${graph.instance.kind}.${graph.instance.group} is already served by ResourceGraphDefinition "${owner.rgdName}"`,
    };
  }
  if (graph.dialect === "template") return attachUserCrd(ctx, rgd, graph);
  // Several versions: the webhook learns the API first, and the CRD says where it is.
  const crd = await withConversionWebhook(ctx.conversion, graph);
  const result = await installCrd(ctx.client, crd, {
    rgdName: name,
    rgdUid: rgd.metadata?.uid ?? "",
    kroVersion: ctx.kroVersion,
    allowBreakingChanges: allowsBreakingChanges(rgd),
  });
  if (!result.ok) return { ok: false, reason: result.reason, message: result.message };
  const { group, version, kind, plural, scope } = graph.instance;
  if (graph.versions !== undefined) {
    // The storage version moved: rewrite every stored object, then trim storedVersions.
    const live = await ctx.client.get(crdRef(crd.metadata.name));
    if (needsMigration(live)) {
      // Told on the RGD as Events: the only other trace of a migration is the controller's log.
      const told = (reason: string, message: string, type: "Normal" | "Warning" = "Normal") => {
        void recordEvent(ctx, rgd, reason, message, type);
      };
      ctx.migrations.ensure(
        { crdName: crd.metadata.name, group, kind, plural, version },
        () => {
          ctx.rgdQueue.add(name);
        },
        {
          started: () => {
            told("StorageMigrationStarted", `rewriting every stored ${kind} in the CRD's storage version`);
          },
          finished: (rewritten) => {
            told(
              "StorageMigrationDone",
              `${rewritten} stored ${kind} objects rewritten in the storage version; the CRD's storedVersions are trimmed`,
            );
          },
          failed: (message, retryInMs) => {
            told(
              "StorageMigrationFailed",
              `${message}; resumed from its saved progress in ${Math.round(retryInMs / 1000)} s`,
              "Warning",
            );
          },
        },
      );
    }
  }
  return {
    ok: true,
    instance: {
      apiVersion: group === "" ? version : `${group}/${version}`,
      group,
      version,
      kind,
      plural,
      namespaced: scope === "Namespaced",
    },
  };
}

export function sameKind(a: InstanceKind, b: InstanceKind): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.plural === b.plural;
}
