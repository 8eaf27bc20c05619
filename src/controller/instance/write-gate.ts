/**
 * The gate every write to a child passes, immediately before the request (child-port.ts calls it;
 * nothing else sends a child write — test/tooling/child-write-gate.test.ts proves it). It judges
 * the concrete request, not a prediction made earlier in the pass:
 *
 * - **placement**: a child of a resource with a target cluster goes only to a cluster the RGD's
 *   allow list names (`clusters:`), in whichever apply round it appears; an empty or missing
 *   target is an error, never the controller's own cluster; a resource without a target never
 *   leaves the controller's cluster;
 * - **ownership**: an apply is guarded (the recorded or adopted UID, or create-only), a delete
 *   carries the recorded UID, a release patch a resourceVersion of the object whose UID was
 *   checked — so no write can land on an object we did not create or were not asked to adopt.
 *
 * Authority (who may cause a write where) is decided where the requester is known for certain,
 * at the instance's admission (author-policy/); see docs/design/authorization.md. Pure.
 */
import { ANNOTATIONS, labelValue } from "../../api/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import type { KubeJson } from "../../runtime/index.js";
import { CREATE_ONLY_RESOURCE_VERSION, nodeIdOf } from "./apply-plan.js";

/** Node id → the clusters the RGD allows it in (undefined: the node has no target cluster). */
export interface PlacementRules {
  readonly nodes: ReadonlyMap<string, { readonly clusters?: readonly string[] | undefined }>;
}

/** The placement rules of a graph, keyed as a child's node-id label carries the id (shortened when long). */
export function placementOf(graph: Pick<CompiledGraph, "nodes">): PlacementRules {
  return { nodes: new Map(graph.nodes.map((n) => [labelValue(n.id), { clusters: n.clusters }])) };
}

/** A write the gate refused: no request was sent. */
export class WriteRefused extends Error {
  override readonly name = "WriteRefused";
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const metadataOf = (body: KubeJson): Record<string, unknown> => (isRecord(body.metadata) ? body.metadata : {});

/** Where an apply of `body` may go: the cluster name, undefined for the controller's own; throws WriteRefused. */
export function judgeApply(rules: PlacementRules, body: KubeJson): string | undefined {
  const metadata = metadataOf(body);
  const nodeId = nodeIdOf(body);
  const node = rules.nodes.get(nodeId);
  if (node === undefined) throw new WriteRefused(`resource "${nodeId}" is not part of the graph this instance runs`);
  if (typeof metadata.uid !== "string" && metadata.resourceVersion !== CREATE_ONLY_RESOURCE_VERSION)
    throw new WriteRefused(`an apply of resource "${nodeId}" carries no ownership guard (UID or create-only)`);
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  const target = annotations[ANNOTATIONS.cluster];
  if (node.clusters === undefined) {
    if (target !== undefined)
      throw new WriteRefused(
        `resource "${nodeId}" has no target cluster, yet its object names cluster ${JSON.stringify(target)}`,
      );
    return undefined;
  }
  if (typeof target !== "string" || target === "")
    throw new WriteRefused(
      `resource "${nodeId}": its target cluster evaluated to ${target === undefined ? "nothing" : JSON.stringify(target)}; an empty target is an error, not this cluster`,
    );
  if (!node.clusters.includes(target))
    throw new WriteRefused(
      `cluster "${target}" is not allowed for resource "${nodeId}": the RGD allows ${node.clusters.map((c) => `"${c}"`).join(", ")}`,
    );
  return target;
}

/** A release patch must be preconditioned on the object it was computed from; throws WriteRefused. */
export function judgePatch(patch: KubeJson): void {
  const metadata = metadataOf(patch);
  if (typeof metadata.resourceVersion !== "string" && typeof metadata.uid !== "string")
    throw new WriteRefused("a patch of a child must carry the resourceVersion or UID it was computed from");
}
