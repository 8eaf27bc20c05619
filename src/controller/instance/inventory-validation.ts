/**
 * The inventory is an annotation on the instance, so anyone who may edit the instance may edit it.
 * Before an entry is acted on (deleted, pruned, released) it must be one this graph could have
 * produced: its node exists and manages objects, its kind is that node's kind, and its namespace is
 * one the node can write to. An entry that fails is never acted on; it is dropped from the record
 * and the instance's condition says why (a tampered inventory cannot turn us into a confused deputy
 * that deletes, with our rights, an object the editor could not delete). The live check that the
 * object carries this instance's identity happens at the write itself (deletion-plan.ts).
 */
import type { CompiledGraph, CompiledNode } from "../../graph/index.js";
import { nodesByRecordedId } from "../../runtime/index.js";
import type { OwnedChild } from "./inventory.js";

export interface RejectedEntry {
  readonly entry: OwnedChild;
  readonly reason: string;
}

export interface ValidatedInventory {
  readonly valid: readonly OwnedChild[];
  readonly rejected: readonly RejectedEntry[];
}

type NamespaceRule =
  { readonly kind: "cluster" } | { readonly kind: "fixed"; readonly value: string } | { readonly kind: "any" };

const isManaging = (node: CompiledNode) => node.type === "resource" || node.type === "collection";

/**
 * Where a node's objects can live, from its template's metadata.namespace as written. A Go-template
 * child (a chart's manifests) names its namespaces only when rendered: any namespace, like a
 * computed one — the live object must still carry this instance's identity (removal-plan.ts).
 */
function namespaceRule(node: CompiledNode, instanceNamespace: string | undefined): NamespaceRule {
  if (node.namespaced === false) return { kind: "cluster" };
  if (node.templateSource !== undefined) return { kind: "any" };
  const metadata = (node.template as { metadata?: { namespace?: unknown } } | undefined)?.metadata;
  const written = metadata?.namespace;
  if (written === undefined || written === null || written === "") {
    return instanceNamespace === undefined ? { kind: "any" } : { kind: "fixed", value: instanceNamespace };
  }
  if (typeof written === "string" && !written.includes("${") && !written.includes("{{"))
    return { kind: "fixed", value: written };
  return { kind: "any" };
}

export function validateInventory(
  graph: CompiledGraph,
  instanceNamespace: string | undefined,
  entries: readonly OwnedChild[],
): ValidatedInventory {
  const nodes = nodesByRecordedId(graph);
  const valid: OwnedChild[] = [];
  const rejected: RejectedEntry[] = [];
  for (const entry of entries) {
    const reason = whyInvalid(entry, nodes.get(entry.nodeId), instanceNamespace);
    if (reason === undefined) valid.push(entry);
    else rejected.push({ entry, reason });
  }
  return { valid, rejected };
}

function whyInvalid(
  entry: OwnedChild,
  node: CompiledNode | undefined,
  instanceNamespace: string | undefined,
): string | undefined {
  if (node === undefined) return `node "${entry.nodeId}" is not in the graph`;
  if (!isManaging(node)) return `node "${entry.nodeId}" is an external reference, which is never owned`;
  if (node.kind !== entry.kind || node.apiVersion.split("/")[0] !== entry.apiVersion.split("/")[0]) {
    return `node "${entry.nodeId}" makes ${node.kind} (${node.apiVersion}), not ${entry.kind} (${entry.apiVersion})`;
  }
  const rule = namespaceRule(node, instanceNamespace);
  if (rule.kind === "cluster" && entry.namespace !== undefined)
    return `${node.kind} is cluster-scoped, but the entry names namespace "${entry.namespace}"`;
  if (rule.kind === "fixed" && entry.namespace !== rule.value)
    return `node "${entry.nodeId}" writes only to namespace "${rule.value}", not "${entry.namespace ?? ""}"`;
  return undefined;
}
