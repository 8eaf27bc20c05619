/**
 * The names of the CRD an RGD implies: kro pluralises the lower-cased kind with flect, so
 * `WebApp` → `webapps.kro.run` and `Policy` → `policies`. The kind keeps its case.
 */
import type { CrdNames } from "./openapi-types.js";
import { pluralize } from "./pluralize.js";

export const DEFAULT_GROUP = "kro.run";

export interface CrdNameOptions {
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

export function crdNamesFor(kind: string, options: CrdNameOptions = {}): CrdNames {
  const singular = kind.toLowerCase();
  const names: CrdNames = { kind, listKind: `${kind}List`, plural: pluralize(singular), singular };
  if (options.shortNames !== undefined && options.shortNames.length > 0) names.shortNames = [...options.shortNames];
  if (options.categories !== undefined && options.categories.length > 0) names.categories = [...options.categories];
  return names;
}

/** `<plural>.<group>`, the metadata.name the API server requires for a CRD. */
export function crdNameFor(kind: string, group: string = DEFAULT_GROUP): string {
  return `${pluralize(kind.toLowerCase())}.${group}`;
}
