/**
 * The one port every request to a child goes through — reads, server-side applies, deletes and
 * release patches — for children in this cluster and in others. Nothing else in the instance
 * reconcile sends a child request, so a rule about what may be written where (ownership,
 * placement, authority) has exactly one place to be enforced on the concrete request.
 *
 * A local child is reached with the controller's own client (fenced with sharding); a child placed
 * in another cluster with that registration's client (docs/design/clusters.md), so a remote write
 * carries exactly the credentials its cluster's owner registered, never the controller's.
 */
import { FIELD_MANAGERS } from "../../api/index.js";
import type { KubeClient, KubeObject, ObjectRef } from "../../kube/index.js";
import type { KubeJson, ObjectIdentity } from "../../runtime/index.js";
import type { ControllerContext } from "../context/index.js";
import type { AdoptionPolicy } from "./apply-outcome.js";
import {
  judgeApply,
  judgeAuthority,
  judgeAuthorship,
  judgeDelete,
  judgePatch,
  withRequester,
  type GatePorts,
  type GateRules,
} from "./write-gate.js";

export type ChildClients = Pick<ControllerContext, "client" | "clusters">;
/** What an apply needs beyond the clients: the SubjectAccessReviews the gate asks for the requester. */
export type ChildAppliers = ChildClients & Pick<ControllerContext, "accessReviews">;

type Where = Pick<ObjectIdentity, "cluster">;

/** Throws (with the cluster's name and why) when the cluster cannot be reached by any client. */
async function clientFor(ctx: ChildClients, where: Where): Promise<KubeClient> {
  if (where.cluster === undefined) return ctx.client;
  const connection = await ctx.clusters.clientFor(where.cluster);
  if ("error" in connection) throw new Error(connection.error);
  return connection.client;
}

/** The gate's questions, asked of the API server: SubjectAccessReviews (cached) and discovery. */
export function gatePorts(ctx: Pick<ControllerContext, "client" | "accessReviews">): GatePorts {
  return {
    ask: (who, question) => ctx.accessReviews.allowed({ user: who.user, groups: who.groups, ...question }),
    resolve: async (apiVersion, kind) => {
      try {
        const { group, resource, namespaced } = await ctx.client.resourceFor(apiVersion, kind);
        return { group, resource, namespaced };
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
  };
}

/** GET a child (metadata only when that is all the caller reads). */
export async function readChild(
  ctx: ChildClients,
  child: ObjectRef & Where,
  options: { readonly metadataOnly?: boolean } = {},
): Promise<KubeObject & KubeJson> {
  return (await clientFor(ctx, child)).get<KubeObject & KubeJson>(
    child,
    options.metadataOnly === true ? { metadataOnly: true } : {},
  );
}

/**
 * Server-side apply of a desired child, as kro's applyset field manager, forced — in the cluster
 * the write gate places it, once the gate has judged ownership, placement, the requester's
 * authority and the RGD author's bound on this very body (write-gate.ts); a refusal sends no request.
 */
export async function applyChild(ctx: ChildAppliers, gate: GateRules, desired: KubeJson): Promise<KubeJson> {
  const body = withRequester(gate, desired);
  const cluster = judgeApply(gate, body);
  const ports = gatePorts(ctx);
  await judgeAuthority(gate, body, ports.ask);
  await judgeAuthorship(gate, body, cluster, ports);
  return (await clientFor(ctx, cluster === undefined ? {} : { cluster })).apply(body, {
    fieldManager: FIELD_MANAGERS.applyset,
    force: true,
  });
}

/**
 * DELETE preconditioned on the UID we recorded, so an object re-created under the name is never
 * ours to delete — once the gate has judged retention on the live object it was decided on.
 */
export async function deleteChild(
  ctx: ChildClients,
  child: ObjectRef &
    Where & { readonly uid: string; readonly ownership: "created" | "adopted"; readonly nodeId: string },
  decidedOn: { readonly live: KubeJson | undefined; readonly adoption: AdoptionPolicy },
): Promise<KubeObject> {
  judgeDelete(child, decidedOn.live, decidedOn.adoption);
  return (await clientFor(ctx, child)).delete(child, {
    preconditions: { uid: child.uid },
    propagationPolicy: "Background",
  });
}

/**
 * A merge patch (recording what an adoption overwrote, releasing an adopted child), as the
 * controller's field manager unless the release writes back labels another manager had written.
 */
export async function patchChild(
  ctx: ChildClients,
  child: ObjectRef & Where,
  patch: KubeJson,
  fieldManager: string = FIELD_MANAGERS.controller,
): Promise<void> {
  judgePatch(patch);
  await (await clientFor(ctx, child)).patch(child, patch, { fieldManager });
}
