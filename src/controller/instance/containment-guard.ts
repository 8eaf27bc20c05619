/**
 * The runtime half of namespace containment (docs/design/authorization.md): before anything is
 * applied, every *evaluated* child of a namespaced instance is checked — so a namespace chosen
 * by instance data is caught whatever expression produced it. A refused child is not written;
 * the rest of the graph goes on, and the instance's status names the child and the opt-in the
 * RGD would need. The scope of a kind comes from discovery, not from the RGD text, so a kind
 * the compiler could not resolve is still judged correctly.
 */
import { ANNOTATIONS, LABELS } from "../../api/index.js";
import { constantNamespace, DEFAULT_CONTAINMENT, type CompiledNode } from "../../graph/index.js";
import type { KubeObject } from "../../kube/index.js";
import { formatIdentity, identityKey, type KubeJson } from "../../runtime/index.js";
import { identityFor } from "../watches/index.js";
import type { ControllerContext } from "../context/index.js";
import type { ServedGraph } from "../context/index.js";

export interface Refusal {
  readonly nodeId: string;
  readonly message: string;
}

/** Refused desired objects by identity key; empty for cluster-scoped instances (they have no namespace to contain). */
export async function containmentRefusals(ctx: Pick<ControllerContext, "client">, served: ServedGraph, instance: KubeObject, desired: readonly KubeJson[]): Promise<Map<string, Refusal>> {
  const refused = new Map<string, Refusal>();
  const home = instance.metadata?.namespace;
  if (home === undefined || home === "") return refused;
  const policy = served.containment ?? DEFAULT_CONTAINMENT;
  if (policy.allowClusterScoped && policy.allowCrossNamespace) return refused;
  const nodes = new Map<string, CompiledNode>(served.graph.nodes.map((n) => [n.id, n]));
  for (const object of desired) {
    const identity = identityFor(object);
    const nodeId = (object.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[LABELS.nodeId] ?? "";
    let namespaced: boolean;
    try {
      namespaced = (await ctx.client.resourceFor(identity.apiVersion, identity.kind)).namespaced;
    } catch {
      continue; // a kind the server does not serve: the apply reports that itself
    }
    const message = refusalOf(identity, namespaced, home, nodes.get(nodeId), policy);
    if (message !== undefined) refused.set(identityKey(identity), { nodeId, message });
  }
  return refused;
}

function refusalOf(identity: ReturnType<typeof identityFor>, namespaced: boolean, home: string, node: CompiledNode | undefined, policy: typeof DEFAULT_CONTAINMENT): string | undefined {
  if (!namespaced) {
    if (policy.allowClusterScoped) return undefined;
    return `refused to write cluster-scoped ${identity.kind} "${identity.name}": instances are namespaced and the ResourceGraphDefinition does not opt in with the annotation ${ANNOTATIONS.allowClusterScoped}: "true"`;
  }
  const namespace = identity.namespace ?? home;
  if (namespace === home || policy.allowCrossNamespace) return undefined;
  if (node !== undefined && namespace === constantNamespace(node)) return undefined;
  return `refused to write ${formatIdentity(identity)} outside the instance's namespace "${home}": the namespace comes from instance data and the ResourceGraphDefinition does not opt in with the annotation ${ANNOTATIONS.allowCrossNamespace}: "true"`;
}
