/**
 * What the controller keeps of each cached child (caches scoped to need, to keep memory down): per
 * child kind, the union over the graphs that use the kind of what they read or set (graph
 * childFieldMasks), plus what the controller itself reads of any child — identity, labels,
 * annotations, owner references, finalizers, deletion state — and the whole `status`
 * (readiness, and kinds a graph may start reading at any time). `managedFields` and the
 * server-defaulted rest of `spec` are dropped. Pure apart from one CEL parser environment.
 */
import { childFieldMasks, mergeMasks, projectJson, type CompiledGraph, type FieldMask } from "../../graph/index.js";
import { createKroCelEnvironment, type KroCelEnvironment } from "../../expr/index.js";
import { stripManagedFields, type KubeObject } from "../../kube/index.js";

const kept = (keys: readonly string[]): FieldMask => new Map(keys.map((k) => [k, true]));

/** Read by the controller from cached children (ownership, routing, deletion, drift guards). */
const CONTROLLER_NEEDS: FieldMask = new Map<string, FieldMask>([
  ["apiVersion", true],
  ["kind", true],
  [
    "metadata",
    kept([
      "name",
      "namespace",
      "uid",
      "resourceVersion",
      "generation",
      "labels",
      "annotations",
      "ownerReferences",
      "finalizers",
      "deletionTimestamp",
      "deletionGracePeriodSeconds",
    ]),
  ],
  ["status", true],
]);

export const gvkKey = (apiVersion: string, kind: string): string => JSON.stringify([apiVersion, kind]);

/** The graph's field masks; a failed analysis keeps everything (a cache too full, never too empty). */
function analysed(graph: CompiledGraph, env: KroCelEnvironment): ReadonlyMap<string, FieldMask> {
  try {
    return childFieldMasks(graph, env);
  } catch {
    return new Map();
  }
}

export class CacheProjections {
  private readonly byGraph = new WeakMap<CompiledGraph, ReadonlyMap<string, FieldMask>>();

  constructor(private readonly env: KroCelEnvironment = createKroCelEnvironment({ enableRuntime: true })) {}

  /** Child kind → what this graph needs of its objects (controller needs included). Memoised per graph. */
  needs(graph: CompiledGraph): ReadonlyMap<string, FieldMask> {
    let byKind = this.byGraph.get(graph);
    if (byKind === undefined) {
      const masks = analysed(graph, this.env);
      const built = new Map<string, FieldMask>();
      for (const node of graph.nodes) {
        const key = gvkKey(node.apiVersion, node.kind);
        built.set(key, mergeMasks(built.get(key) ?? CONTROLLER_NEEDS, masks.get(node.id) ?? true));
      }
      this.byGraph.set(graph, (byKind = built));
    }
    return byKind;
  }

  /** What these graphs together need of one kind; undefined when none of them uses it. */
  union(graphs: Iterable<CompiledGraph>, gvk: string): FieldMask | undefined {
    let mask: FieldMask | undefined;
    for (const graph of graphs) {
      const need = this.needs(graph).get(gvk);
      if (need !== undefined) mask = mask === undefined ? need : mergeMasks(mask, need);
    }
    return mask;
  }
}

/** An informer transform keeping what `current()` says (read at each event: it may narrow). */
export function projectionTransform(current: () => FieldMask): (object: KubeObject) => KubeObject {
  return (object) => {
    const mask = current();
    return mask === true ? stripManagedFields(object) : projectJson(object, mask);
  };
}
