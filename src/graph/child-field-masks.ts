/**
 * What a graph reads of the objects it observes, per node: the fields its expressions read
 * (templates, includeWhen, readyWhen, forEach, status, conditions) plus, for the children it
 * manages, every field its template sets — drift detection compares those with the live
 * object, so a cache without them would re-apply forever. The controller caches children
 * projected on the union of these masks (cache-projections.ts). Pure.
 *
 * Conservative by construction: a path stops where an access is not a plain field access (the
 * rest is kept), an expression that does not parse keeps everything, and template-dialect
 * graphs (Go templates may range over a whole child) keep every child whole.
 */
import { extractExpressions, referencedPaths, type KroCelEnvironment } from "../expr/index.js";
import type { CompiledGraph, CompiledNode } from "./compiled-graph.js";
import { maskOfPath, mergeMasks, templateMask, type FieldMask } from "./field-mask.js";

/** CEL source of a `${…}` template string (status fields, conditions): its expression segments. */
function templateSources(text: string): string[] {
  const sources = extractExpressions(text).segments.flatMap((s) => (s.kind === "expression" ? [s.source] : []));
  return sources.length > 0 ? sources : [text];
}

/** Every CEL source of the graph, with the name that stands for the node itself (readyWhen's `each`). */
function expressionsOf(graph: CompiledGraph): { source: string; self?: CompiledNode }[] {
  const out: { source: string; self?: CompiledNode }[] = [];
  for (const node of graph.nodes) {
    for (const field of node.fields)
      for (const s of field.segments) if (s.kind === "expression") out.push({ source: s.source });
    for (const source of node.includeWhen) out.push({ source });
    for (const source of node.readyWhen) out.push({ source, self: node });
    for (const dimension of node.forEach) out.push({ source: dimension.expression });
  }
  for (const field of graph.status) for (const source of templateSources(field.text)) out.push({ source });
  for (const text of graph.conditions) for (const source of templateSources(text)) out.push({ source });
  return out;
}

/**
 * The fields the API server stores elsewhere than where we write them: a Secret's `stringData`
 * comes back under `data`, and that is what drift detection compares (controller asStored).
 */
function storedShape(node: CompiledNode, shape: FieldMask): FieldMask {
  if (shape === true || node.apiVersion !== "v1" || node.kind !== "Secret" || !shape.has("stringData")) return shape;
  return mergeMasks(shape, maskOfPath(["data"]));
}

/**
 * Node id → the mask of what the graph needs of that node's observed object(s). Managed nodes
 * include their template's shape; external nodes only what expressions read. A collection's
 * mask applies to each of its items.
 */
export function childFieldMasks(graph: CompiledGraph, env: KroCelEnvironment): Map<string, FieldMask> {
  const masks = new Map<string, FieldMask>();
  if (graph.dialect === "template") {
    for (const node of graph.nodes) masks.set(node.id, true);
    return masks;
  }
  const ids = new Set(graph.nodes.map((n) => n.id));
  const add = (id: string, mask: FieldMask) => {
    const existing = masks.get(id);
    masks.set(id, existing === undefined ? mask : mergeMasks(existing, mask));
  };
  for (const node of graph.nodes) {
    add(
      node.id,
      node.type === "external" || node.type === "externalCollection"
        ? new Map()
        : storedShape(node, templateMask(node.template)),
    );
  }
  for (const { source, self } of expressionsOf(graph)) {
    let reads: Map<string, string[][]>;
    try {
      reads = referencedPaths(env, source);
    } catch {
      // The compiler reports it; here, not knowing what it reads means keeping everything.
      for (const id of ids) masks.set(id, true);
      return masks;
    }
    for (const [root, paths] of reads) {
      const id = self !== undefined && root === "each" ? self.id : root;
      if (!ids.has(id)) continue;
      for (const path of paths) add(id, maskOfPath(path));
    }
  }
  return masks;
}
