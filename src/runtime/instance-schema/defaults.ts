/**
 * Structural defaulting as the API server applies it to a custom resource on create: every absent
 * property with a `default` gets a copy of it, and defaulting continues inside the result (so a
 * defaulted `{}` object receives its own children's defaults). A null in a field that is not
 * `nullable` is pruned, or replaced by the field's default when it has one (kube-apiserver's
 * PruneNonNullableNullsWithoutDefaults, then Default). `kro render` runs this first, so an
 * instance file renders exactly as the stored object would.
 */
import type { CustomResourceDefinition, JSONSchemaProps } from "../../schema/index.js";
import { isRecord } from "../identity.js";
import type { KubeJson } from "../types.js";

/** The served version's openAPIV3Schema of a CRD (the first served one when no version is named). */
export function crdSchema(crd: CustomResourceDefinition, version?: string): JSONSchemaProps | undefined {
  const versions = crd.spec.versions;
  const chosen = versions.find((v) => v.name === version) ?? versions.find((v) => v.served) ?? versions[0];
  return chosen?.schema.openAPIV3Schema;
}

function isCrd(value: CustomResourceDefinition | JSONSchemaProps): value is CustomResourceDefinition {
  return "spec" in value && isRecord(value.spec) && Array.isArray((value.spec as { versions?: unknown }).versions);
}

/** A null where the schema does not allow one (kube-apiserver's isNonNullableNull). */
const nonNullableNull = (value: unknown, schema: JSONSchemaProps | undefined): boolean =>
  value === null && schema !== undefined && schema.nullable !== true;

function defaultValue(value: unknown, schema: JSONSchemaProps): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items === undefined) return value;
    // A null item is defaulted when it may not be null; never removed (it would shift the list).
    return value.map((item) =>
      defaultValue(
        nonNullableNull(item, items) && items.default !== undefined ? structuredClone(items.default) : item,
        items,
      ),
    );
  }
  if (!isRecord(value)) return value;
  const extra = isRecord(schema.additionalProperties) ? schema.additionalProperties : undefined;
  // A null the field may not hold: pruned, or replaced by the default below.
  const pruned = (key: string, item: unknown) => {
    const child = schema.properties?.[key] ?? extra;
    return nonNullableNull(item, child) && child?.default === undefined;
  };
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(value).filter(([key, item]) => !pruned(key, item)),
  );
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if ((out[key] === undefined || nonNullableNull(out[key], child)) && child.default !== undefined)
      out[key] = structuredClone(child.default);
    if (out[key] !== undefined) out[key] = defaultValue(out[key], child);
  }
  if (extra !== undefined) {
    for (const key of Object.keys(out)) {
      if (schema.properties?.[key] !== undefined) continue;
      if (nonNullableNull(out[key], extra) && extra.default !== undefined) out[key] = structuredClone(extra.default);
      out[key] = defaultValue(out[key], extra);
    }
  }
  return out;
}

/** A defaulted copy of `instance` (the input is not modified). */
export function applySchemaDefaults(
  crdOrSchema: CustomResourceDefinition | JSONSchemaProps,
  instance: KubeJson,
): KubeJson {
  const schema = isCrd(crdOrSchema)
    ? crdSchema(crdOrSchema, typeof instance.apiVersion === "string" ? instance.apiVersion.split("/").pop() : undefined)
    : crdOrSchema;
  return schema === undefined ? instance : (defaultValue(instance, schema) as KubeJson);
}
