/**
 * The template dialect's part of an RGD index: its children (the id as written, or the one the
 * compiler gives by default, `Deployment` → `deployment`), the parent kind, and every place a
 * child id is read: `.children.<id>` inside `{{…}}` and the entries of `dependsOn`. Read from the
 * YAML as written, like the CEL dialect's index.
 */
import type { SourceDocument, SourceSpan, SourceString } from "../../api/index.js";
import { defaultChildId } from "../../graph/index.js";
import { record, text } from "./yaml-values.js";

export interface IdRead {
  readonly name: string;
  readonly span: SourceSpan;
}

export interface TemplateChild {
  readonly id: string;
  /** Where the id is written; for a default id, the kind it comes from. */
  readonly span: SourceSpan;
  readonly extent: SourceSpan;
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly readyWhen?: SourceSpan;
}

function under(strings: readonly SourceString[], prefix: readonly (string | number)[]): SourceString[] {
  return strings.filter((s) => prefix.every((segment, i) => s.path[i] === segment));
}

/** From the first to the last string under `prefix` (keys included). */
export function extentOf(
  strings: readonly SourceString[],
  prefix: readonly (string | number)[],
): SourceSpan | undefined {
  const inside = under(strings, prefix);
  if (inside.length === 0) return undefined;
  return {
    start: Math.min(...inside.map((s) => s.span.start)),
    end: Math.max(...inside.map((s) => s.span.end)),
  };
}

export function templateChildren(document: SourceDocument, strings: readonly SourceString[]): TemplateChild[] {
  const list = record(record(document.value)?.spec)?.childResources;
  if (!Array.isArray(list)) return [];
  const children: TemplateChild[] = [];
  list.forEach((item: unknown, index) => {
    const entry = record(item);
    const kind = text(entry?.kind);
    const written = text(entry?.id);
    const id = written ?? (kind === undefined ? undefined : defaultChildId(kind));
    const at = ["spec", "childResources", index];
    const span = document.span([...at, written === undefined ? "kind" : "id"]);
    const extent = extentOf(strings, at);
    if (id === undefined || span === undefined || extent === undefined) return;
    const apiVersion = text(entry?.apiVersion);
    const readyWhen = extentOf(strings, [...at, "readyWhen"]);
    children.push({
      id,
      span,
      extent,
      ...(apiVersion === undefined ? {} : { apiVersion }),
      ...(kind === undefined ? {} : { kind }),
      ...(readyWhen === undefined ? {} : { readyWhen }),
    });
  });
  return children;
}

const CHILD_READ = /\.children\.([A-Za-z_]\w*)/g;

/** `.children.<id>` inside each `{{…}}` of the children's strings, and each `dependsOn` entry. */
export function templateIdReads(strings: readonly SourceString[], fileText: string): IdRead[] {
  const reads: IdRead[] = [];
  for (const string of under(strings, ["spec", "childResources"])) {
    if (string.isKey) continue;
    if (string.path[3] === "dependsOn") {
      reads.push({ name: string.value, span: string.span });
      continue;
    }
    const raw = fileText.slice(string.span.start, string.span.end);
    for (const action of raw.matchAll(/\{\{[\s\S]*?\}\}/g))
      for (const read of action[0].matchAll(CHILD_READ)) {
        const start = string.span.start + action.index + read.index + ".children.".length;
        reads.push({ name: read[1] ?? "", span: { start, end: start + (read[1]?.length ?? 0) } });
      }
  }
  return reads.sort((a, b) => a.span.start - b.span.start);
}

/** The parent kind a template-dialect RGD attaches to (`spec.resourceKind`). */
export function parentKind(document: SourceDocument): { apiVersion: string; kind: string } | undefined {
  const ref = record(record(record(document.value)?.spec)?.resourceKind);
  const group = text(ref?.group);
  const version = text(ref?.version);
  const kind = text(ref?.kind);
  if (version === undefined || kind === undefined) return undefined;
  return { apiVersion: group === undefined || group === "" ? version : `${group}/${version}`, kind };
}
