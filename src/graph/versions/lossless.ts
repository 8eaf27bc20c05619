/**
 * The lossless check of a declared conversion: every leaf of the source spec must reach the
 * target — copied implicitly (the same path, a compatible type, and no explicit mapping writes
 * over it), read by one of the direction's expressions, or listed in `roundTrip` so an annotation
 * carries it back. A leaf that reaches nowhere is an error at its declaration in the RGD.
 */
import { error, type Issue, type IssuePath } from "../../diag/index.js";
import { incompatibility } from "../../expr/index.js";
import type { JSONSchemaProps } from "../../schema/index.js";
import { dotted, fieldSchema, isPrefix, overlaps, schemaLeaves, type FieldPath } from "./schema-leaves.js";

export interface LosslessInput {
  readonly source: { readonly name: string; readonly spec: JSONSchemaProps; readonly declaredAt: IssuePath };
  readonly target: { readonly name: string; readonly spec: JSONSchemaProps };
  readonly reads: readonly FieldPath[];
  readonly writes: readonly FieldPath[];
  readonly roundTrip: readonly FieldPath[];
  /** Where to tell the author to map it, e.g. "conversion.toHub". */
  readonly mapName: string;
  readonly roundTripName: string;
}

/** Whether the implicit copy carries `path` (prune-to-target keeps it and nothing overwrites it). */
export function copiedImplicitly(
  path: FieldPath,
  source: JSONSchemaProps,
  target: JSONSchemaProps,
  writes: readonly FieldPath[],
): boolean {
  const from = fieldSchema(source, path);
  const to = fieldSchema(target, path);
  if (from === undefined || to === undefined) return false;
  if (writes.some((w) => overlaps(w, path))) return false;
  return incompatibility(from, to) === undefined;
}

export function lostFields(input: LosslessInput): Issue[] {
  const issues: Issue[] = [];
  for (const leaf of schemaLeaves(input.source.spec)) {
    if (copiedImplicitly(leaf, input.source.spec, input.target.spec, input.writes)) continue;
    if (input.reads.some((r) => overlaps(r, leaf))) continue;
    if (input.roundTrip.some((k) => isPrefix(k, leaf))) continue;
    const field = `spec.${dotted(leaf)}`;
    issues.push(
      error(
        "rgd.conversion-lossy",
        [...input.source.declaredAt, ...leaf],
        `field ${field} of ${input.source.name} is lost converting to ${input.target.name}: map it in ${input.mapName}, or list "${field}" in ${input.roundTripName} to keep it in an annotation`,
      ),
    );
  }
  return issues;
}
