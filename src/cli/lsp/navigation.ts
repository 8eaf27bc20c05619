/**
 * Go to definition and find references for resource ids: `deploy` in `${deploy.spec.replicas}`
 * (or `web` in a template's `.children.web`, or a `dependsOn` entry) leads to `id: deploy`, and
 * from either, every read of `deploy` in the same RGD. Only root names of `${…}` count
 * (`x.deploy` is a field), and only names that are ids of that RGD.
 */
import type { SourceSpan } from "../../api/index.js";
import type { Analysis } from "./analysis.js";
import { rgdAt, type ResourceEntry, type RgdIndex } from "./rgd-index.js";

function holds(span: SourceSpan, offset: number): boolean {
  return span.start <= offset && offset <= span.end;
}

/** The resource whose id is under `offset`, written either as `id: …` or as a root name in `${…}`. */
function resourceAt(rgd: RgdIndex, offset: number): ResourceEntry | undefined {
  const declared = rgd.resources.find((r) => holds(r.span, offset));
  if (declared !== undefined) return declared;
  const read = rgd.reads.find((r) => holds(r.span, offset));
  return read === undefined ? undefined : rgd.resources.find((r) => r.id === read.name);
}

export function definitionAt(analysis: Analysis, offset: number): SourceSpan | undefined {
  const rgd = rgdAt(analysis.rgds, offset);
  return rgd === undefined ? undefined : resourceAt(rgd, offset)?.span;
}

/** Every read of the resource under `offset`, in source order; its `id:` first when asked. */
export function referencesAt(analysis: Analysis, offset: number, includeDeclaration: boolean): SourceSpan[] {
  const rgd = rgdAt(analysis.rgds, offset);
  const resource = rgd === undefined ? undefined : resourceAt(rgd, offset);
  if (rgd === undefined || resource === undefined) return [];
  const reads = rgd.reads.filter((r) => r.name === resource.id).map((r) => r.span);
  return includeDeclaration ? [resource.span, ...reads] : reads;
}
