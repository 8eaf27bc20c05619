/**
 * The migration plan's render against the cluster, as the controller's first reconcile of the
 * adopting instance renders it (helm-import.md, "`lookup` and `.Capabilities` on a cluster"):
 * `.Capabilities` from the API server, and `lookup` answered from the live cluster under the
 * controller's own tenant rules (the same `withHelmCluster` the reconcile uses). Offline, `lookup`
 * would return `{}` (as `helm template`), so a chart that keeps a generated password through
 * `lookup` would plan a new password and a pod-template checksum change that the controller
 * never makes.
 *
 * The render is pure and synchronous, so — as the controller's scope settling does — it runs,
 * the scopes its lookups asked for are read with the caller's client, and it runs again, until a
 * pass asks for nothing new: at most MAX_SCOPE_PASSES + 1 renders.
 */
import { HelmClusterCache, MAX_SCOPE_PASSES, withHelmCluster } from "../../controller/index.js";
import { containmentPolicyOf, type CompiledGraph } from "../../graph/index.js";
import type { HelmImportResult } from "../../helm/index.js";
import { isNotFound, stripManagedFields, type KubeClient, type KubeObject } from "../../kube/index.js";
import {
  createMemoryLookup,
  type CollectionQuery,
  type InstanceEvaluation,
  type KubeJson,
  type ObjectIdentity,
  type ObservedLookup,
} from "../../runtime/index.js";
import { InputError } from "../inputs/index.js";
import { appliedObjects, renderImported } from "./import-render.js";

/** How the scopes a render's lookups named are read (the CLI's kube client; a fake in tests). */
export interface LookupReader {
  /** The object, or undefined when it does not exist. */
  get(identity: ObjectIdentity): Promise<KubeJson | undefined>;
  list(query: CollectionQuery): Promise<readonly KubeJson[]>;
}

const isQuery = (request: ObjectIdentity | CollectionQuery): request is CollectionQuery => "matchLabels" in request;

const describeRequest = (request: ObjectIdentity | CollectionQuery): string =>
  isQuery(request)
    ? `${request.kind} (${request.apiVersion}) ${request.namespace === undefined ? "in all namespaces" : `in namespace ${request.namespace}`}`
    : `${request.kind} (${request.apiVersion}) ${request.namespace === undefined ? "" : `${request.namespace}/`}${request.name}`;

/**
 * Renders with `render(lookupFrom)` until its lookups settle: each pass's new scopes are read
 * through `reader` and the next pass sees them. A chart whose reads never settle is an error, as
 * in the controller (where nothing of it would be applied).
 */
export async function settleLookups(
  render: (lookupFrom: ObservedLookup) => InstanceEvaluation,
  reader: LookupReader,
): Promise<InstanceEvaluation> {
  const answers = createMemoryLookup();
  const read = new Set<string>();
  for (let pass = 0; ; pass++) {
    const evaluation = render(answers);
    const fresh = new Map<string, ObjectIdentity | CollectionQuery>();
    for (const { request } of evaluation.externals) {
      const key = JSON.stringify(request);
      if (!read.has(key)) fresh.set(key, request);
    }
    if (fresh.size === 0) return evaluation;
    if (pass === MAX_SCOPE_PASSES)
      throw new InputError(
        `the chart's lookups did not settle: after ${MAX_SCOPE_PASSES + 1} renders each one still read objects the previous one had not (a lookup named by another lookup's answer, changing every time); the controller would apply nothing of it either`,
      );
    for (const [key, request] of fresh) {
      read.add(key);
      try {
        if (isQuery(request)) for (const item of await reader.list(request)) answers.put(item);
        else {
          const found = await reader.get(request);
          if (found !== undefined) answers.put(found);
        }
      } catch (error) {
        throw new InputError(
          `the chart looks up ${describeRequest(request)}, which could not be read: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
}

/** The reader over a kube client: objects as the controller's caches hold them (no managedFields). */
export function clusterLookupReader(client: KubeClient): LookupReader {
  return {
    get: async (identity) => {
      try {
        const found = await client.get({
          apiVersion: identity.apiVersion,
          kind: identity.kind,
          name: identity.name,
          ...(identity.namespace === undefined ? {} : { namespace: identity.namespace }),
        });
        return stripManagedFields(found);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    list: async (query) => {
      const list = await client.list(query.apiVersion, query.kind, {
        ...(query.namespace === undefined ? {} : { namespace: query.namespace }),
      });
      return list.items.map((item) => stripManagedFields(item) as KubeJson);
    },
  };
}

/**
 * What the controller would apply for the adopting instance, rendered against the cluster: the
 * capabilities the controller reads, and `lookup` answered from the live objects (not from the
 * render's own simulated applies: a lookup of the chart's own Secret must see the live one).
 */
export async function renderDesiredOnCluster(
  client: KubeClient,
  imported: HelmImportResult,
  graph: CompiledGraph,
  instance: KubeObject,
  reader: LookupReader = clusterLookupReader(client),
): Promise<KubeJson[]> {
  const { helm } = await withHelmCluster(
    { client, helmCluster: new HelmClusterCache(client) },
    { graph, containment: containmentPolicyOf(imported.rgd) },
    {},
  );
  if (helm === undefined) return appliedObjects(renderImported(imported, graph, instance));
  const evaluation = await settleLookups(
    (lookupFrom) => renderImported(imported, graph, instance, { ...helm, lookupFrom }),
    reader,
  );
  return appliedObjects(evaluation);
}
