/**
 * Ports through which the compiler learns the schema and scope of a child kind: the bundled
 * schemas of Kubernetes' built-in kinds, CRD manifests the user passes, or (in the CLI and the
 * controller) a live cluster. Reading files or clusters happens outside; these are pure.
 */
import type { OpenApiSchema } from "../expr/index.js";

export interface ResolvedKind {
  readonly schema: OpenApiSchema;
  readonly namespaced: boolean;
  readonly plural: string;
}

export interface SchemaResolver {
  resolve(apiVersion: string, kind: string): ResolvedKind | undefined;
}

/** Content of schemas/kubernetes/<minor>.json.gz (see scripts/refresh-builtin-schemas.mjs). */
export interface BuiltinSchemaBundle {
  readonly kubernetesVersion: string;
  readonly kinds: Readonly<
    Record<string, { readonly schema: string; readonly plural: string; readonly namespaced: boolean }>
  >;
  readonly schemas: Readonly<Record<string, unknown>>;
}

const REF_PREFIX = "#/components/schemas/";
/** Recursive types (JSONSchemaProps) stop here and become untyped (dyn). */
const MAX_REF_DEPTH = 24;
const UNTYPED: OpenApiSchema = { "x-kubernetes-preserve-unknown-fields": true };

/** Inlines `$ref`s (also the `allOf: [{$ref}]` wrapper Kubernetes emits), cutting cycles to dyn. */
export function dereference(schemas: Readonly<Record<string, unknown>>, root: unknown): OpenApiSchema {
  const inline = (node: unknown, stack: readonly string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => inline(item, stack));
    if (node === null || typeof node !== "object") return node;
    const record = node as Record<string, unknown>;
    const ref = record.$ref;
    const allOf = record.allOf;
    if (typeof ref === "string") {
      const name = ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : ref;
      if (stack.includes(name) || stack.length >= MAX_REF_DEPTH || schemas[name] === undefined) return UNTYPED;
      return inline(schemas[name], [...stack, name]);
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record)) {
      if (key === "allOf" && Array.isArray(allOf) && allOf.length === 1) continue;
      out[key] = inline(value, stack);
    }
    if (Array.isArray(allOf) && allOf.length === 1) Object.assign(out, inline(allOf[0], stack));
    return out;
  };
  return inline(root, []) as OpenApiSchema;
}

/**
 * Kinds every kube-apiserver serves through its built-in aggregator (kube-aggregator), which the
 * bundles leave out (scripts/refresh-builtin-schemas.mjs skips the apiregistration group): scope
 * and plural as discovery gives them, the schema open. Without this an APIService would be
 * rendered with a namespace it cannot have.
 */
const AGGREGATOR_KINDS: Readonly<Record<string, { readonly plural: string; readonly namespaced: boolean }>> = {
  "apiregistration.k8s.io/v1/APIService": { plural: "apiservices", namespaced: false },
};

export function builtinSchemaResolver(bundle: BuiltinSchemaBundle): SchemaResolver {
  const cache = new Map<string, ResolvedKind>();
  return {
    resolve(apiVersion, kind) {
      const key = `${apiVersion}/${kind}`;
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const entry = bundle.kinds[key];
      const aggregated = AGGREGATOR_KINDS[key];
      if (entry === undefined && aggregated !== undefined) return { schema: UNTYPED, ...aggregated };
      if (entry === undefined) return undefined;
      const resolved = {
        schema: dereference(bundle.schemas, bundle.schemas[entry.schema]),
        namespaced: entry.namespaced,
        plural: entry.plural,
      };
      cache.set(key, resolved);
      return resolved;
    },
  };
}

interface CrdLike {
  readonly kind?: unknown;
  readonly spec?: {
    readonly group?: string;
    readonly scope?: string;
    readonly names?: { readonly kind?: string; readonly plural?: string };
    readonly versions?: readonly { readonly name?: string; readonly schema?: { readonly openAPIV3Schema?: unknown } }[];
  };
}

/**
 * What the API server adds to a CRD's schema when it publishes it: `apiVersion`, `kind` and
 * `metadata` (ObjectMeta), which a CRD's own openAPIV3Schema usually leaves out. Without them every
 * template of the kind would have "unknown" apiVersion, kind and metadata.
 */
function asPublished(schema: unknown, objectMeta: OpenApiSchema): OpenApiSchema {
  const own = (typeof schema === "object" && schema !== null ? schema : UNTYPED) as OpenApiSchema;
  if (own.properties === undefined) return own;
  return {
    ...own,
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: objectMeta,
      ...own.properties,
    },
  };
}

const OPEN_OBJECT: OpenApiSchema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

/**
 * Kinds defined by CustomResourceDefinition manifests (e.g. `kro validate --crd FILE`), typed as the
 * API server publishes them; `objectMeta` is ObjectMeta's schema (an open object without one).
 */
export function crdSchemaResolver(crds: readonly unknown[], objectMeta: OpenApiSchema = OPEN_OBJECT): SchemaResolver {
  const kinds = new Map<string, ResolvedKind>();
  for (const item of crds) {
    const crd = item as CrdLike;
    if (crd.kind !== "CustomResourceDefinition" || crd.spec?.names?.kind === undefined) continue;
    for (const version of crd.spec.versions ?? []) {
      const apiVersion = `${crd.spec.group ?? ""}/${version.name ?? ""}`;
      kinds.set(`${apiVersion}/${crd.spec.names.kind}`, {
        schema: asPublished(version.schema?.openAPIV3Schema, objectMeta),
        namespaced: crd.spec.scope !== "Cluster",
        plural: crd.spec.names.plural ?? crd.spec.names.kind.toLowerCase(),
      });
    }
  }
  return { resolve: (apiVersion, kind) => kinds.get(`${apiVersion}/${kind}`) };
}

/** CRD manifests' kinds before `base`'s, with ObjectMeta as `base` knows it. */
export function withCrds(crds: readonly unknown[], base: SchemaResolver): SchemaResolver {
  const objectMeta = base.resolve("v1", "ConfigMap")?.schema.properties?.metadata;
  return chainResolvers(crdSchemaResolver(crds, objectMeta), base);
}

/** The first resolver that knows the kind wins. */
export function chainResolvers(...resolvers: readonly SchemaResolver[]): SchemaResolver {
  return {
    resolve(apiVersion, kind) {
      for (const resolver of resolvers) {
        const found = resolver.resolve(apiVersion, kind);
        if (found !== undefined) return found;
      }
      return undefined;
    },
  };
}
