/**
 * What the bundled built-in schemas cannot know: the scope and plural of child kinds that are
 * CRDs on this cluster (another RGD's instances, operators' kinds). Looked up through discovery
 * before compiling, so namespaces are defaulted only for kinds that are really namespaced.
 * Their fields stay untyped (like kro without a schema), which type checking tolerates.
 */
import { chainResolvers, type ResolvedKind, type SchemaResolver } from "../../graph/index.js";
import type { KubeClient } from "../../kube/index.js";

const UNTYPED = { "x-kubernetes-preserve-unknown-fields": true } as const;

export async function withClusterKinds(
  client: KubeClient,
  rgd: unknown,
  base: SchemaResolver | undefined,
): Promise<SchemaResolver | undefined> {
  const found = new Map<string, ResolvedKind>();
  for (const { apiVersion, kind } of childKinds(rgd)) {
    if (base?.resolve(apiVersion, kind) !== undefined) continue;
    try {
      const info = await client.resourceFor(apiVersion, kind);
      found.set(`${apiVersion}/${kind}`, { schema: UNTYPED, namespaced: info.namespaced, plural: info.resource });
    } catch {
      // Not served (yet): compile without it, as offline; the informer reports it at reconcile.
    }
  }
  if (found.size === 0) return base;
  const cluster: SchemaResolver = { resolve: (apiVersion, kind) => found.get(`${apiVersion}/${kind}`) };
  return base === undefined ? cluster : chainResolvers(base, cluster);
}

function childKinds(rgd: unknown): { apiVersion: string; kind: string }[] {
  const spec = (rgd as { spec?: { resources?: unknown; childResources?: unknown } } | undefined)?.spec;
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
  const entries = [...list(spec?.resources), ...list(spec?.childResources)];
  const kinds: { apiVersion: string; kind: string }[] = [];
  for (const entry of entries) {
    const e = entry as {
      template?: { apiVersion?: unknown; kind?: unknown };
      externalRef?: { apiVersion?: unknown; kind?: unknown };
      apiVersion?: unknown;
      kind?: unknown;
    } | null;
    const source = e?.template ?? e?.externalRef ?? e;
    if (typeof source?.apiVersion === "string" && typeof source.kind === "string")
      kinds.push({ apiVersion: source.apiVersion, kind: source.kind });
  }
  return kinds;
}
