/**
 * The type of `schema.metadata` in expressions. kro declares the full ObjectMeta schema there
 * (pkg/graph/builder.go, getSchemaWithoutStatus → ObjectMetaSchema) and, for a cluster-scoped
 * instance, leaves out `namespace`: such an instance has none, so `${schema.metadata.namespace}`
 * is a compile error rather than an empty string at runtime.
 */
import type { OpenApiSchema } from "../../expr/index.js";
import type { SchemaResolver } from "../schema-resolver.js";

const STRING: OpenApiSchema = { type: "string" };
const STRING_MAP: OpenApiSchema = { type: "object", additionalProperties: STRING };
const UNTYPED: OpenApiSchema = { "x-kubernetes-preserve-unknown-fields": true };

/** Used when no schema source is at hand (a resolver gives Kubernetes' own ObjectMeta). */
const MINIMAL_OBJECT_META: OpenApiSchema = {
  type: "object",
  properties: {
    name: STRING,
    generateName: STRING,
    namespace: STRING,
    uid: STRING,
    resourceVersion: STRING,
    generation: { type: "integer" },
    labels: STRING_MAP,
    annotations: STRING_MAP,
    creationTimestamp: { type: "string", format: "date-time" },
    deletionTimestamp: { type: "string", format: "date-time" },
    finalizers: { type: "array", items: STRING },
    ownerReferences: { type: "array", items: UNTYPED },
    managedFields: { type: "array", items: UNTYPED },
  },
};

export function instanceMetadataSchema(
  resolver: SchemaResolver | undefined,
  scope: "Namespaced" | "Cluster",
): OpenApiSchema {
  const objectMeta = resolver?.resolve("v1", "ConfigMap")?.schema.properties?.metadata ?? MINIMAL_OBJECT_META;
  if (scope === "Namespaced" || objectMeta.properties === undefined) return objectMeta;
  const { namespace: _namespace, ...rest } = objectMeta.properties;
  return { ...objectMeta, properties: rest };
}
