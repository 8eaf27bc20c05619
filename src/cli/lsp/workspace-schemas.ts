/**
 * Kinds defined by the files open in the editor: a CustomResourceDefinition document, and the CRD
 * each RGD generates (an RGD may use another RGD's kind as a child). Their schemas are laid over
 * the server's own sources (built-in, --crd, --cluster), so an RGD is checked against the CRD
 * being written beside it, unsaved, and is checked again when that CRD changes.
 */
import { withCrds, type SchemaResolver } from "../../graph/index.js";
import { isKind } from "../inputs/index.js";
import type { Analysis } from "./analysis.js";

/**
 * The CRDs one analysed document defines, written or generated; undefined while one of its RGDs
 * does not compile, so that the kind it defined stays known while its author is mid-edit.
 */
export function definedCrds(analysis: Analysis): unknown[] | undefined {
  if (analysis.compiled.graphs.length < analysis.rgds.length) return undefined;
  const written = analysis.loaded.documents.filter((d) => isKind(d, "CustomResourceDefinition")).map((d) => d.value);
  const generated = analysis.compiled.graphs.flatMap((g) => (g.crd === undefined ? [] : [g.crd]));
  return [...written, ...generated];
}

export class WorkspaceSchemas {
  /** Document uri → the CRDs it defines, and their JSON to tell a change. */
  readonly #defined = new Map<string, { crds: unknown[]; json: string }>();
  #resolver: SchemaResolver;
  /** Counts rebuilds: an analysis made under an older generation is stale. */
  #generation = 0;

  constructor(private readonly base: SchemaResolver) {
    this.#resolver = base;
  }

  get resolver(): SchemaResolver {
    return this.#resolver;
  }

  get generation(): number {
    return this.#generation;
  }

  /** Records what `uri` defines now (nothing: `[]`); true when that changed the schemas. */
  update(uri: string, crds: readonly unknown[]): boolean {
    const json = JSON.stringify(crds);
    if ((this.#defined.get(uri)?.json ?? "[]") === json) return false;
    if (crds.length === 0) this.#defined.delete(uri);
    else this.#defined.set(uri, { crds: [...crds], json });
    const all = [...this.#defined.values()].flatMap((d) => d.crds);
    this.#resolver = all.length === 0 ? this.base : withCrds(all, this.base);
    this.#generation++;
    return true;
  }
}
