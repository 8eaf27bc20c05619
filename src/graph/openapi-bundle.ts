/**
 * A schema bundle (the shape of the bundled built-in schemas) from a live API server's OpenAPI v3
 * documents, so a cluster's own kinds — CRDs included — type-check like built-ins. The documents
 * and discovery facts are fetched (and cached) by the caller; this only reshapes them.
 */
import { isRecord } from "./is-record.js";
import type { BuiltinSchemaBundle } from "./schema-resolver.js";

export interface OpenApiGroupVersion {
  /** "v1" for the core group, else "group/version". */
  readonly groupVersion: string;
  /** The `/openapi/v3/api/v1` or `/openapi/v3/apis/<group>/<version>` document. */
  readonly document: unknown;
  /** Discovery's plural and scope for each kind (OpenAPI has neither). */
  readonly resources: readonly { readonly kind: string; readonly plural: string; readonly namespaced: boolean }[];
}

function groupVersionKinds(schema: unknown): { group: string; version: string; kind: string }[] {
  const list = isRecord(schema) ? schema["x-kubernetes-group-version-kind"] : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((gvk: unknown) =>
    isRecord(gvk) && typeof gvk.version === "string" && typeof gvk.kind === "string"
      ? [{ group: typeof gvk.group === "string" ? gvk.group : "", version: gvk.version, kind: gvk.kind }]
      : [],
  );
}

export function schemaBundleFromOpenApi(
  kubernetesVersion: string,
  groupVersions: readonly OpenApiGroupVersion[],
): BuiltinSchemaBundle {
  const schemas: Record<string, unknown> = {};
  const kinds: Record<string, { schema: string; plural: string; namespaced: boolean }> = {};
  for (const { groupVersion, document, resources } of groupVersions) {
    const components =
      isRecord(document) && isRecord(document.components) && isRecord(document.components.schemas)
        ? document.components.schemas
        : {};
    const byKind = new Map(resources.map((r) => [r.kind, r]));
    for (const [name, schema] of Object.entries(components)) {
      schemas[name] = schema;
      for (const gvk of groupVersionKinds(schema)) {
        const apiVersion = gvk.group === "" ? gvk.version : `${gvk.group}/${gvk.version}`;
        const resource = byKind.get(gvk.kind);
        // a document also describes kinds of other versions (e.g. DeleteOptions); keep only its own served kinds
        if (apiVersion !== groupVersion || resource === undefined) continue;
        kinds[`${apiVersion}/${gvk.kind}`] ??= {
          schema: name,
          plural: resource.plural,
          namespaced: resource.namespaced,
        };
      }
    }
  }
  return { kubernetesVersion, kinds, schemas };
}
