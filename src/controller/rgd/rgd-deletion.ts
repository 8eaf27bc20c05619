/**
 * Deleting an RGD (docs/reference/kro-reference.md §6.2): never strands instances, removes the
 * author policy, the CRD only with --allow-crd-deletion, and the GraphRevisions; after a restart a
 * deleted RGD's graph is served again so its instances' deletions complete.
 */
import { FINALIZER, LABELS, labelMatches } from "../../api/index.js";
import { hasErrors } from "../../diag/index.js";
import { isNotFound, type KubeObject } from "../../kube/index.js";
import { currentConditions, stamp } from "../../runtime/index.js";
import type { ReconcileResult } from "../loop/index.js";
import type { ControllerContext } from "../context/index.js";
import { crdRef } from "../crds/index.js";
import { removeAuthorPolicy } from "../author-policy/index.js";
import { RGD_CONDITIONS, RGD_STATES } from "./rgd-status.js";
import { stopServing } from "./instance-kinds.js";
import { deleteGraphRevisions } from "./graph-revisions.js";
import { keepServing, serveGraph } from "./rgd-serving.js";
import { rgdRef, writeRgdStatus } from "./rgd-status-write.js";

/**
 * Deleting an RGD never strands instances: while any instance of its kind exists, the RGD keeps
 * its finalizer, keeps serving (so instance deletions run their normal, wave-by-wave course) and
 * says what it waits for. Only then does it stop serving and let go. The CRD stays unless
 * --allow-crd-deletion (and then only a CRD this RGD generated).
 */
export async function deleteRgd(ctx: ControllerContext, rgd: KubeObject): Promise<ReconcileResult> {
  const name = rgd.metadata?.name ?? "";
  const served = ctx.served.get(name);
  // With sharded caches this replica sees only its shards' instances: ask the API server (one
  // metadata-only list per look while the deletion waits — rare, and never a wrong "none left").
  const instances =
    ctx.cacheScoping !== undefined && served !== undefined
      ? (await ctx.client.list(served.instance.apiVersion, served.instance.kind, { metadataOnly: true })).items
      : (ctx.instanceLeases.get(name)?.informer.store.list() ?? []);
  if (served !== undefined && instances.length > 0) {
    const shown = instances
      .slice(0, 5)
      .map((i) => `${i.metadata?.namespace === undefined ? "" : `${i.metadata.namespace}/`}${i.metadata?.name ?? ""}`)
      .join(", ");
    const message = `deletion waits for ${instances.length} ${served.instance.kind} instance(s) to be deleted: ${shown}${instances.length > 5 ? ", …" : ""}`;
    const blocked = { type: RGD_CONDITIONS.ready, status: "False" as const, reason: "InstancesExist", message };
    const previous = (rgd.status as { conditions?: unknown[] } | undefined)?.conditions ?? [];
    const others = previous.filter((c) => (c as { type?: string }).type !== RGD_CONDITIONS.ready);
    const conditions = [...others, stamp(blocked, currentConditions(rgd), rgd.metadata?.generation, ctx.now())];
    await writeRgdStatus(ctx, rgd, {
      ...(rgd.status as Record<string, unknown> | undefined),
      state: RGD_STATES.inactive,
      conditions,
    });
    return { requeueAfterMs: 2000 };
  }
  await stopServing(ctx, name);
  // Owned by the RGD too: garbage collection removes what this cannot (e.g. RBAC revoked).
  await removeAuthorPolicy(ctx.client, rgd.metadata?.uid ?? "").catch((error: unknown) => {
    ctx.logger.warn(
      { rgd: name, err: error instanceof Error ? error.message : String(error) },
      "could not remove the instance-author policy",
    );
  });
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
    await ctx.client.patch(rgdRef(name), {
      metadata: {
        finalizers: finalizers.filter((f) => f !== FINALIZER),
        resourceVersion: rgd.metadata?.resourceVersion,
      },
    });
  }
  return {};
}

/**
 * After a restart the registry is empty: to know whether a deleted RGD still has instances (and
 * to process their deletions) serve its graph again — the current spec, or when that is invalid
 * the newest GraphRevision — without recreating a CRD that is gone.
 */
export async function serveForDeletion(ctx: ControllerContext, rgd: KubeObject): Promise<void> {
  const compiled = await ctx.compile(rgd);
  if (compiled.graph === undefined || hasErrors(compiled.issues)) {
    await keepServing(ctx, rgd, undefined);
    return;
  }
  await serveGraph(ctx, rgd, compiled.graph, rgd.metadata?.generation ?? 0, undefined);
}
