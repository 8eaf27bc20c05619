/**
 * Structural defaulting as the API server applies it to a custom resource on create: every absent
 * property with a `default` gets a copy of it, and defaulting continues inside the result (so a
 * defaulted `{}` object receives its own children's defaults). `kro render` runs this first, so
 * an instance file renders exactly as the stored object would.
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

function defaultValue(value: unknown, schema: JSONSchemaProps): unknown {
  if (Array.isArray(value)) return schema.items === undefined ? value : value.map((item) => defaultValue(item, schema.items as JSONSchemaProps));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    if (out[key] === undefined && child.default !== undefined) out[key] = structuredClone(child.default);
    if (out[key] !== undefined) out[key] = defaultValue(out[key], child);
  }
  if (isRecord(schema.additionalProperties)) {
    const extra = schema.additionalProperties;
    for (const key of Object.keys(out)) if (schema.properties?.[key] === undefined) out[key] = defaultValue(out[key], extra);
  }
  return out;
}

/** A defaulted copy of `instance` (the input is not modified). */
export function applySchemaDefaults(crdOrSchema: CustomResourceDefinition | JSONSchemaProps, instance: KubeJson): KubeJson {
  const schema = isCrd(crdOrSchema) ? crdSchema(crdOrSchema, typeof instance.apiVersion === "string" ? instance.apiVersion.split("/").pop() : undefined) : crdOrSchema;
  return schema === undefined ? instance : defaultValue(instance, schema) as KubeJson;
}
