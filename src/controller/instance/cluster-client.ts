/**
 * The client that reaches a child: the controller's own for a local child, the registration's
 * for a child placed in another cluster (docs/design/clusters.md) — so a remote write carries exactly
 * the credentials its cluster's owner registered, never the controller's.
 */
import type { KubeClient } from "../../kube/index.js";
import type { ObjectIdentity } from "../../runtime/index.js";
import type { ControllerContext } from "../context/index.js";

export type ChildClients = Pick<ControllerContext, "client" | "clusters">;

/** Throws (with the cluster's name and why) when the cluster cannot be reached by any client. */
export async function childClient(ctx: ChildClients, identity: Pick<ObjectIdentity, "cluster">): Promise<KubeClient> {
  if (identity.cluster === undefined) return ctx.client;
  const connection = await ctx.clusters.clientFor(identity.cluster);
  if ("error" in connection) throw new Error(connection.error);
  return connection.client;
}
