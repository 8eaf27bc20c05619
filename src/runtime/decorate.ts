/**
 * The metadata kro stamps on every child it applies (docs/reference/kro-reference.md §6.8):
 * ownership labels, the node id, collection position, and the apply-order wave. Also defaults the
 * namespace of namespaced children to the instance's. The applyset part-of label is left to the
 * controller, which tracks ownership with its own inventory.
 */
import { ANNOTATIONS, LABELS, labelValue, MANAGED_BY_VALUE } from "../api/index.js";
import type { CompiledGraph, CompiledNode } from "../graph/index.js";
import { isRecord, metadataOf } from "./identity.js";
import type { KubeJson } from "./types.js";

export const DEFAULT_KRO_VERSION = "dev";

export interface InstanceRef {
  readonly name: string;
  /** Absent for cluster-scoped instances. */
  readonly namespace?: string;
  readonly uid?: string;
}

export function instanceRef(instance: KubeJson): InstanceRef {
  const metadata = metadataOf(instance);
  return {
    name: typeof metadata.name === "string" ? metadata.name : "",
    ...(typeof metadata.namespace === "string" && metadata.namespace !== "" ? { namespace: metadata.namespace } : {}),
    ...(typeof metadata.uid === "string" && metadata.uid !== "" ? { uid: metadata.uid } : {}),
  };
}

/** Labels that select every child of one node of one instance (also used to list collection items). */
export function nodeSelector(graph: CompiledGraph, instance: InstanceRef, nodeId: string): Record<string, string> {
  // Without a uid (kro render of an instance never stored) the name/namespace labels identify it.
  const owner: Record<string, string> =
    instance.uid !== undefined
      ? { [LABELS.instanceId]: instance.uid }
      : {
          [LABELS.instanceName]: labelValue(instance.name),
          ...(instance.namespace === undefined ? {} : { [LABELS.instanceNamespace]: labelValue(instance.namespace) }),
        };
  return { ...owner, [LABELS.instanceKind]: labelValue(graph.instance.kind), [LABELS.nodeId]: labelValue(nodeId) };
}

export function childLabels(
  graph: CompiledGraph,
  instance: InstanceRef,
  nodeId: string,
  kroVersion: string,
): Record<string, string> {
  return {
    [LABELS.owned]: "true",
    [LABELS.kroVersion]: kroVersion,
    ...(instance.uid === undefined ? {} : { [LABELS.instanceId]: instance.uid }),
    // Names may exceed a label value's 63 characters: shortened the same way wherever read.
    [LABELS.instanceName]: labelValue(instance.name),
    ...(instance.namespace === undefined ? {} : { [LABELS.instanceNamespace]: labelValue(instance.namespace) }),
    [LABELS.instanceGroup]: labelValue(graph.instance.group),
    [LABELS.instanceVersion]: labelValue(graph.instance.version),
    [LABELS.instanceKind]: labelValue(graph.instance.kind),
    [LABELS.managedBy]: MANAGED_BY_VALUE,
    [LABELS.nodeId]: labelValue(nodeId),
  };
}

export interface DecorateInput {
  readonly graph: CompiledGraph;
  readonly node: CompiledNode;
  readonly instance: InstanceRef;
  readonly kroVersion: string;
  /** RuntimeOptions.childLabels. */
  readonly extraLabels?: Readonly<Record<string, string>>;
  /** forEach items only. */
  readonly item?: { readonly index: number; readonly size: number };
}

/**
 * Namespaced kinds (and kinds of unknown scope, which are far more often namespaced) without a
 * namespace get the instance's; for a cluster-scoped instance there is none to give.
 */
export function defaultNamespace(
  object: KubeJson,
  node: CompiledNode,
  instance: InstanceRef,
): { object: KubeJson } | { error: string } {
  if (node.namespaced === false) return { object };
  const metadata = metadataOf(object);
  if (typeof metadata.namespace === "string" && metadata.namespace !== "") return { object };
  if (instance.namespace === undefined) {
    return {
      error: `resource "${node.id}": metadata.namespace resolved to an empty value; ${node.kind} is namespaced and the instance is cluster-scoped, so the namespace must be set`,
    };
  }
  return { object: { ...object, metadata: { ...metadata, namespace: instance.namespace } } };
}

/** A copy of `object` with kro's labels and annotations added (the author's own keys kept). */
export function decorate(object: KubeJson, input: DecorateInput): KubeJson {
  const metadata = metadataOf(object);
  const labels: Record<string, unknown> = {
    ...(isRecord(metadata.labels) ? metadata.labels : {}),
    ...input.extraLabels,
    ...childLabels(input.graph, input.instance, input.node.id, input.kroVersion),
    ...(input.item === undefined
      ? {}
      : { [LABELS.collectionIndex]: String(input.item.index), [LABELS.collectionSize]: String(input.item.size) }),
  };
  const annotations: Record<string, unknown> = {
    ...(isRecord(metadata.annotations) ? metadata.annotations : {}),
    [ANNOTATIONS.applyOrder]: String(input.node.wave),
  };
  return { ...object, metadata: { ...metadata, labels, annotations } };
}
