/**
 * `kro tree`'s side of reading a tree (the reading itself is inspect's tree reader): the RGDs'
 * graphs compiled here against the live cluster's schemas, and the kind a user typed (kind,
 * plural or `kind.group`) resolved to the kind an RGD serves. Read-only: only get and list requests.
 */
import type { CompiledGraph } from "../../graph/index.js";
import { compileRgd } from "../../graph/index.js";
import { createKroCelEnvironment } from "../../expr/index.js";
import { formatIssue, hasErrors } from "../../diag/index.js";
import { RGD, KRO_API_VERSION } from "../../api/index.js";
import type { KubeClient, KubeObject } from "../../kube/index.js";
import {
  apiVersionOf,
  childApiVersionsOf,
  createTreeReader,
  graphCacheKey,
  type ClusterReads,
  type GraphSource,
  type TreeReader,
} from "../../inspect/index.js";
import { InputError, schemaResolverFor } from "../inputs/index.js";
import { liveSchemaResolver, type LiveSchemaOptions } from "../compile/index.js";

export { apiVersionOf, childApiVersionsOf, servedKind } from "../../inspect/index.js";

/**
 * Graphs of these RGDs compiled against the live cluster's schemas (read once, on the first
 * compile), kept in `cache` by `graphCacheKey` — a long-running view passes the same map again.
 */
export function liveGraphSource(
  rgds: readonly KubeObject[],
  schemaOptions: LiveSchemaOptions,
  cache = new Map<string, CompiledGraph>(),
): GraphSource {
  let resolver: Awaited<ReturnType<typeof schemaResolverFor>> | undefined;
  return async (rgd) => {
    const key = graphCacheKey(rgd);
    const known = cache.get(key);
    if (known !== undefined) return known;
    resolver ??= await schemaResolverFor(
      undefined,
      [],
      (await liveSchemaResolver(childApiVersionsOf(rgds), schemaOptions)).resolver,
    );
    const result = compileRgd(rgd, {
      resolver,
      env: createKroCelEnvironment({ enableRuntime: true }),
      unknownKinds: "error",
    });
    if (result.graph === undefined || hasErrors(result.issues)) {
      const first = result.issues.find((i) => i.severity === "error");
      throw new InputError(
        `ResourceGraphDefinition ${rgd.metadata?.name ?? ""} does not compile here, so its tree cannot be evaluated: ${first === undefined ? "unknown error" : formatIssue(first)}`,
      );
    }
    cache.set(key, result.graph);
    return result.graph;
  };
}

export interface CliTreeReader extends TreeReader {
  /** Resolves `kind` as typed on the command line (WebApp, webapps, webapp.kro.run) to the kind an RGD serves. */
  resolveKind(typed: string): Promise<{ apiVersion: string; kind: string; namespaced: boolean }>;
}

export async function createCliTreeReader(
  client: KubeClient,
  schemaOptions: LiveSchemaOptions,
  clusters?: ClusterReads,
): Promise<CliTreeReader> {
  const rgds = (await client.list(KRO_API_VERSION, RGD.kind)).items;
  const reader = createTreeReader(client, rgds, liveGraphSource(rgds, schemaOptions), clusters);
  return {
    ...reader,
    async resolveKind(typed: string) {
      const [kindPart = "", ...groupParts] = typed.split(".");
      const group = groupParts.join(".");
      const lower = kindPart.toLowerCase();
      const candidates: { entry: (typeof reader.served)[number]; namespaced: boolean }[] = [];
      for (const entry of reader.served) {
        if (group !== "" && entry.group !== group) continue;
        let info;
        try {
          info = await client.resourceFor(apiVersionOf(entry.group, entry.version), entry.kind);
        } catch {
          continue; // the RGD's CRD is not served (yet): its instances cannot exist
        }
        if (entry.kind.toLowerCase() === lower || info.resource === lower)
          candidates.push({ entry, namespaced: info.namespaced });
      }
      const [only, second] = candidates;
      if (only === undefined) {
        const known = reader.served
          .map((s) => `${s.kind}.${s.group}`)
          .sort()
          .join(", ");
        throw new InputError(
          `no ResourceGraphDefinition serves a kind "${typed}" on ${client.server}${known === "" ? " (no RGDs there)" : ` (served: ${known})`}`,
        );
      }
      if (second !== undefined)
        throw new InputError(
          `"${typed}" is ambiguous: ${candidates.map((c) => `${c.entry.kind}.${c.entry.group}`).join(", ")}; name the group (KIND.GROUP/NAME)`,
        );
      return {
        apiVersion: apiVersionOf(only.entry.group, only.entry.version),
        kind: only.entry.kind,
        namespaced: only.namespaced,
      };
    },
  };
}
