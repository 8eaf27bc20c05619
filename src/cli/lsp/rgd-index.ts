/**
 * What the editor features need to know about one RGD document of a file: its resources (id,
 * kind, where the id is written) and its `${…}` sites. Read from the YAML as written, not from the
 * compiled graph, so that it is there while the RGD is still broken, as it is while one types.
 */
import type { SourceDocument, SourceSpan, SourceString } from "../../api/index.js";
import { expressionSites, type ExpressionSite } from "./expression-sites.js";
import { extentOf, parentKind, templateChildren, templateIdReads, type IdRead } from "./template-index.js";
import { record, text } from "./yaml-values.js";

export interface ResourceEntry {
  readonly id: string;
  /** Where the id's value is written (`deploy` of `id: deploy`). */
  readonly span: SourceSpan;
  /** The whole entry of spec.resources: where its forEach variables are in scope. */
  readonly extent: SourceSpan;
  readonly apiVersion?: string;
  readonly kind?: string;
  /** forEach variables in declaration order: `region` of `- region: ${schema.spec.regions}`. */
  readonly iterators: readonly Iterator[];
  /** Where its readyWhen list is written: there `each` is an item of a collection. */
  readonly readyWhen?: SourceSpan;
}

export interface Iterator {
  readonly name: string;
  /** The list it ranges over, as written (`${schema.spec.regions}`). */
  readonly over: string;
}

export interface RgdIndex {
  readonly document: SourceDocument;
  readonly dialect: "cel" | "template";
  /** The CEL dialect's resources, or the template dialect's children. */
  readonly resources: readonly ResourceEntry[];
  /** Every place a resource id is read, in source order (`deploy` of `${deploy.spec}`, `.children.web`, `dependsOn`). */
  readonly reads: readonly IdRead[];
  /** The template dialect's parent kind (`spec.resourceKind`). */
  readonly parent?: { readonly apiVersion: string; readonly kind: string };
  readonly sites: readonly ExpressionSite[];
  /** From its first to its last string: which document an offset belongs to. */
  readonly extent: SourceSpan;
}

function iteratorsOf(forEach: unknown): Iterator[] {
  if (!Array.isArray(forEach)) return [];
  return forEach.flatMap((dimension: unknown) =>
    Object.entries(record(dimension) ?? {}).flatMap(([name, over]) =>
      typeof over === "string" ? [{ name, over }] : [],
    ),
  );
}

function resourcesOf(document: SourceDocument, strings: readonly SourceString[]): ResourceEntry[] {
  const resources = record(document.value)?.spec;
  const list = record(resources)?.resources;
  if (!Array.isArray(list)) return [];
  const entries: ResourceEntry[] = [];
  list.forEach((item: unknown, index) => {
    const entry = record(item);
    const id = text(entry?.id);
    const span = document.span(["spec", "resources", index, "id"]);
    const extent = extentOf(strings, ["spec", "resources", index]);
    if (id === undefined || span === undefined || extent === undefined) return;
    const template = record(entry?.template) ?? record(entry?.externalRef);
    const apiVersion = text(template?.apiVersion);
    const kind = text(template?.kind);
    const readyWhen = extentOf(strings, ["spec", "resources", index, "readyWhen"]);
    entries.push({
      id,
      span,
      extent,
      ...(apiVersion === undefined ? {} : { apiVersion }),
      ...(kind === undefined ? {} : { kind }),
      iterators: iteratorsOf(entry?.forEach),
      ...(readyWhen === undefined ? {} : { readyWhen }),
    });
  });
  return entries;
}

export function indexRgd(document: SourceDocument, fileText: string): RgdIndex {
  const strings = document.strings();
  const extent = {
    start: strings[0]?.span.start ?? 0,
    end: strings.reduce((end, s) => Math.max(end, s.span.end), 0),
  };
  const sites = expressionSites(document, fileText);
  const spec = record(record(document.value)?.spec);
  if (spec?.childResources !== undefined || spec?.resourceKind !== undefined) {
    const parent = parentKind(document);
    return {
      document,
      dialect: "template",
      resources: templateChildren(document, strings).map((child) => ({ ...child, iterators: [] })),
      reads: templateIdReads(strings, fileText),
      ...(parent === undefined ? {} : { parent }),
      sites,
      extent,
    };
  }
  const reads = sites.flatMap((site) =>
    site.identifiers.filter((t) => t.root).map((t) => ({ name: t.name, span: t.span })),
  );
  return { document, dialect: "cel", resources: resourcesOf(document, strings), reads, sites, extent };
}

/** The RGD an offset lies in: the one whose extent holds it, else the last one starting before it. */
export function rgdAt(rgds: readonly RgdIndex[], offset: number): RgdIndex | undefined {
  const inside = rgds.find((r) => r.extent.start <= offset && offset <= r.extent.end);
  if (inside !== undefined) return inside;
  return rgds.filter((r) => r.extent.start <= offset).at(-1) ?? rgds[0];
}
