/**
 * What the editor features need to know about one RGD document of a file: its resources (id,
 * kind, where the id is written) and its `${…}` sites. Read from the YAML as written, not from the
 * compiled graph, so that it is there while the RGD is still broken, as it is while one types.
 */
import type { SourceDocument, SourceSpan } from "../../api/index.js";
import { expressionSites, type ExpressionSite } from "./expression-sites.js";

export interface ResourceEntry {
  readonly id: string;
  /** Where the id's value is written (`deploy` of `id: deploy`). */
  readonly span: SourceSpan;
  readonly apiVersion?: string;
  readonly kind?: string;
}

export interface RgdIndex {
  readonly document: SourceDocument;
  readonly resources: readonly ResourceEntry[];
  readonly sites: readonly ExpressionSite[];
  /** From its first to its last string: which document an offset belongs to. */
  readonly extent: SourceSpan;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function resourcesOf(document: SourceDocument): ResourceEntry[] {
  const resources = record(document.value)?.spec;
  const list = record(resources)?.resources;
  if (!Array.isArray(list)) return [];
  const entries: ResourceEntry[] = [];
  list.forEach((item: unknown, index) => {
    const entry = record(item);
    const id = text(entry?.id);
    const span = document.span(["spec", "resources", index, "id"]);
    if (id === undefined || span === undefined) return;
    const template = record(entry?.template) ?? record(entry?.externalRef);
    const apiVersion = text(template?.apiVersion);
    const kind = text(template?.kind);
    entries.push({
      id,
      span,
      ...(apiVersion === undefined ? {} : { apiVersion }),
      ...(kind === undefined ? {} : { kind }),
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
  return { document, resources: resourcesOf(document), sites: expressionSites(document, fileText), extent };
}

/** The RGD an offset lies in: the one whose extent holds it, else the last one starting before it. */
export function rgdAt(rgds: readonly RgdIndex[], offset: number): RgdIndex | undefined {
  const inside = rgds.find((r) => r.extent.start <= offset && offset <= r.extent.end);
  if (inside !== undefined) return inside;
  return rgds.filter((r) => r.extent.start <= offset).at(-1) ?? rgds[0];
}
