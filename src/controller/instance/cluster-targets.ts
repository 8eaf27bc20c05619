/**
 * Before applying: which children this pass places in other clusters, whether the RGD author
 * allows each target (the node's `clusters` list, graph/cel/cluster-target.ts), and the watches of
 * those clusters (watches/remote-watches.ts). A cluster that cannot be used now fails alone: its
 * children are left for this pass (nothing written, nothing pruned) with an error naming the
 * cluster, and every other child still converges. Pure except for the watch start.
 */
import type { CompiledGraph } from "../../graph/index.js";
import { clusterOf, identityKey, type InstanceEvaluation } from "../../runtime/index.js";
import type { ControllerContext } from "../context/index.js";
import { identityFor, type RemoteTarget } from "../watches/index.js";
import { nodeIdOf } from "./apply-plan.js";
import type { Inventory } from "./inventory.js";

export interface TargetCheck {
  /** Node id → why (some of) its children cannot be placed now; names the cluster. */
  readonly errors: Map<string, string>;
  /** Identity keys of desired children in those clusters: not written in this pass. */
  readonly held: Set<string>;
  /** A remote watch synced for the first time: evaluate again with what it holds. */
  readonly started: boolean;
}

/**
 * Before an instance's children are removed (deletion.ts): the watches of every cluster it may
 * have children in — each cluster its record names, and each *registered* cluster the graph may
 * place children in (constants and allow lists) — so a child created just before a crash, not
 * recorded yet, is found there by its creation key like a local one. Node id → why a cluster
 * cannot answer now: the deletion is held (never finished on a cluster's silence). An allowed
 * cluster that no registration names holds nothing: no child can have been written there since
 * (what was, is recorded and held by the record).
 */
export async function watchClustersForDeletion(
  ctx: Pick<ControllerContext, "watches" | "clusters">,
  graph: CompiledGraph,
  inventory: Inventory,
): Promise<Map<string, string>> {
  const targets: RemoteTarget[] = [];
  for (const entry of inventory.entries)
    if (entry.cluster !== undefined)
      targets.push({ nodeId: entry.nodeId, cluster: entry.cluster, apiVersion: entry.apiVersion, kind: entry.kind });
  for (const node of graph.nodes) {
    for (const cluster of node.clusters ?? [])
      if (ctx.clusters.registered(cluster))
        targets.push({ nodeId: node.id, cluster, apiVersion: node.apiVersion, kind: node.kind });
  }
  return (await ctx.watches.ensureRemote(targets)).errors;
}

export async function checkClusterTargets(
  ctx: Pick<ControllerContext, "watches">,
  graph: CompiledGraph,
  evaluation: InstanceEvaluation,
  inventory: Inventory,
): Promise<TargetCheck> {
  const errors = new Map<string, string>();
  const held = new Set<string>();
  const targets: (RemoteTarget & { key?: string })[] = [];
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  for (const desired of evaluation.apply) {
    const cluster = clusterOf(desired);
    if (cluster === undefined) continue;
    const identity = identityFor(desired);
    const nodeId = nodeIdOf(desired);
    const allowed = nodes.get(nodeId)?.clusters ?? [];
    if (!allowed.includes(cluster)) {
      errors.set(
        nodeId,
        `cluster "${cluster}" is not allowed for resource "${nodeId}": the RGD allows ${allowed.map((c) => `"${c}"`).join(", ") || "no other cluster"}`,
      );
      held.add(identityKey(identity));
      continue;
    }
    targets.push({ nodeId, cluster, apiVersion: identity.apiVersion, kind: identity.kind, key: identityKey(identity) });
  }
  // What we recorded in other clusters is watched too: its prune and recovery read that cache.
  for (const entry of inventory.entries)
    if (entry.cluster !== undefined)
      targets.push({ nodeId: entry.nodeId, cluster: entry.cluster, apiVersion: entry.apiVersion, kind: entry.kind });
  const remote = await ctx.watches.ensureRemote(targets);
  for (const [nodeId, reason] of remote.errors) errors.set(nodeId, reason);
  for (const target of targets) {
    // Errors name their cluster: a forEach over two clusters holds only the failing one's items.
    if (
      target.key !== undefined &&
      remote.errors.get(target.nodeId)?.startsWith(`cluster "${target.cluster}"`) === true
    )
      held.add(target.key);
  }
  return { errors, held, started: remote.started };
}
