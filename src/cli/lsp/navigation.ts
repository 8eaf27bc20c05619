/**
 * Go to definition and find references for resource ids: `deploy` in `${deploy.spec.replicas}`
 * leads to `id: deploy`, and from either, every `${…}` that reads `deploy` in the same RGD. Only
 * root names count (`x.deploy` is a field), and only names that are ids of that RGD.
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
  for (const site of rgd.sites) {
    if (!holds(site.span, offset)) continue;
    const token = site.identifiers.find((t) => t.root && holds(t.span, offset));
    return token === undefined ? undefined : rgd.resources.find((r) => r.id === token.name);
  }
  return undefined;
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
  const reads = rgd.sites.flatMap((site) =>
    site.identifiers.filter((t) => t.root && t.name === resource.id).map((t) => t.span),
  );
  return includeDeclaration ? [resource.span, ...reads] : reads;
}
