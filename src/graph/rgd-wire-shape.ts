/**
 * What the API server does to an RGD's spec before the controller reads it, done offline too, so
 * `kro validate` and a live apply agree. The RGD's CRD (api/rgd-crd.ts) is structural: an
 * explicit `null` on one of its fields is pruned as if the field were absent (kro, reading Go
 * structs, sees no value either), and a field it does not declare is refused by kubectl's strict
 * field validation. Free-form parts (templates, SimpleSchema) are left to their own checks.
 */
import { RGD_SPEC_SCHEMA, type JSONSchemaProps } from "../api/index.js";
import { error, type Issue, type IssuePath } from "../diag/index.js";
import { isRecord } from "./is-record.js";

const freeForm = (schema: JSONSchemaProps): boolean =>
  schema["x-kubernetes-preserve-unknown-fields"] === true || schema.properties === undefined;

function withoutNulls(value: unknown, schema: JSONSchemaProps): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return items === undefined ? value : value.map((v) => withoutNulls(v, items));
  }
  if (!isRecord(value) || freeForm(schema)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const declared = schema.properties?.[key];
    if (declared === undefined) out[key] = field;
    else if (field !== null) out[key] = withoutNulls(field, declared);
  }
  return out;
}

/** `spec` with every explicit null on a declared field of the RGD's schema dropped, as the API server prunes it. */
export function specWithoutNulls(spec: Record<string, unknown>): Record<string, unknown> {
  return withoutNulls(spec, RGD_SPEC_SCHEMA) as Record<string, unknown>;
}

/**
 * Fields under `spec.schema` the RGD's CRD does not declare (a typo such as `stauts:`, or a field
 * of another tool), one error each with its path. `versions[]` entries are checked where they are
 * compiled (versions/version-decls.ts).
 */
export function unknownSchemaFields(schema: Record<string, unknown>): Issue[] {
  const declared = RGD_SPEC_SCHEMA.properties?.schema;
  return declared === undefined ? [] : unknownFields(schema, declared, ["spec", "schema"]);
}

function unknownFields(value: unknown, schema: JSONSchemaProps, path: IssuePath): Issue[] {
  if (!isRecord(value) || freeForm(schema)) return [];
  const known = schema.properties ?? {};
  return Object.entries(value).flatMap(([key, field]) => {
    const declared = known[key];
    if (declared === undefined)
      return [
        error(
          "rgd.unknown-field",
          [...path, key],
          `unknown field "${key}" (${path.join(".")} has ${Object.keys(known).join(", ")}); the API server refuses it`,
        ),
      ];
    return key === "versions" ? [] : unknownFields(field, declared, [...path, key]);
  });
}
