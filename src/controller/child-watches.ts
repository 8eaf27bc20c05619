/**
 * Watches everything instances read or manage, and routes every event to the instances it
 * concerns — this is what makes progress event-driven (a dependency turning ready wakes its
 * instance at once) and what corrects drift. Managed children are found by the labels the
 * runtime puts on them; external objects by the watch requests each reconcile declares.
 * The same informer stores back the runtime's ObservedLookup port.
 */
import { LABELS, MANAGED_BY_VALUE } from "../api/index.js";
import type { CompiledGraph } from "../graph/index.js";
import { isForbidden, type Informer, type InformerLease, type InformerManager, type KubeClient, type KubeObject } from "../kube/index.js";
import { identityKey, identityOf, matchesQuery, type CollectionQuery, type KubeJson, type ObjectIdentity, type ObservedLookup } from "../runtime/index.js";

const SYNC_TIMEOUT_MS = 30_000;
/** How long a failed list probe of a kind is reused before the API server is asked again. */
const PROBE_RECHECK_MS = 5_000;
/** A name no object carries (names cannot contain "_"): the access probe lists it, one request. */
const PROBE_NAME = "kro_watch_probe";

/** The identity of an object we built or read back; those always have apiVersion, kind and name. */
export function identityFor(object: KubeJson): ObjectIdentity {
  const identity = identityOf(object);
  if (identity === undefined) throw new Error(`object without apiVersion, kind or name: ${JSON.stringify(object).slice(0, 200)}`);
  return identity;
}

type WatchRequest = ObjectIdentity | CollectionQuery;

const OWNER_INDEX = "owner-instance-id";
const ownerIndex = (object: KubeObject): string[] => {
  const uid = object.metadata?.labels?.[LABELS.instanceId];
  return uid === undefined ? [] : [uid];
};

/** Overlay of this reconcile's own writes (apply responses; null = deleted) over the caches. */
export type Overlay = Map<string, KubeJson | null>;

export class ChildWatches {
  private readonly managed = new Map<string, InformerLease<KubeObject>>();
  private readonly external = new Map<string, InformerLease<KubeObject>>();
  /** instance key → what its last reconcile read outside its own children. */
  private readonly requests = new Map<string, readonly WatchRequest[]>();
  /** gvk → the last failed probe (RBAC, not served). */
  private readonly failedProbes = new Map<string, { readonly reason: string; readonly at: number }>();

  constructor(
    private readonly client: KubeClient,
    private readonly informers: InformerManager,
    /** The instance key a managed child belongs to, from its labels (undefined: not ours to route). */
    private readonly ownerOf: (labels: Readonly<Record<string, string>>) => string | undefined,
    private readonly enqueue: (instanceKey: string) => void,
  ) {}

  /**
   * Starts (once) and waits for the informers every node of the graph needs. A kind this
   * controller may not list (RBAC) or that the server does not serve is not waited for: it is
   * returned as node id → reason, so the instance reconciles every other node and shows these
   * as errors (kro does the same: a forbidden child fails alone). A failed probe is remembered
   * for a few seconds, so many instances of one graph cost one probe, not one each.
   */
  async ensure(graph: CompiledGraph): Promise<Map<string, string>> {
    const waits: Promise<void>[] = [];
    const unwatchable = new Map<string, string>();
    for (const node of graph.nodes) {
      const gvk = JSON.stringify([node.apiVersion, node.kind]);
      const isExternal = node.type === "external" || node.type === "externalCollection";
      const map = isExternal ? this.external : this.managed;
      let lease = map.get(gvk);
      if (lease === undefined) {
        const reason = await this.probe(node.apiVersion, node.kind);
        if (reason !== undefined) {
          unwatchable.set(node.id, `cannot watch ${node.kind} (${node.apiVersion}) for resource "${node.id}": ${reason}`);
          continue;
        }
        lease = this.informers.acquire({
          apiVersion: node.apiVersion,
          kind: node.kind,
          ...(isExternal ? {} : { labelSelector: `${LABELS.managedBy}=${MANAGED_BY_VALUE}`, indexers: { [OWNER_INDEX]: ownerIndex } }),
        });
        lease.informer.addHandlers(isExternal ? this.externalHandlers(node.apiVersion, node.kind) : this.managedHandlers());
        map.set(gvk, lease);
      }
      if (!lease.informer.hasSynced) waits.push(lease.informer.waitForSync({ timeoutMs: SYNC_TIMEOUT_MS }));
    }
    await Promise.all(waits);
    return unwatchable;
  }

  /** Undefined when the kind can be listed; else why not (possibly remembered from a recent probe). */
  private async probe(apiVersion: string, kind: string): Promise<string | undefined> {
    const gvk = JSON.stringify([apiVersion, kind]);
    const recent = this.failedProbes.get(gvk);
    if (recent !== undefined && Date.now() - recent.at < PROBE_RECHECK_MS) return recent.reason;
    try {
      // One request whatever the cluster holds: list() follows every page, so `limit: 1` alone
      // would page through all existing objects of the kind one at a time (a 1,000-instance
      // cold start spent minutes here). A name no object has keeps the answer to one empty page.
      await this.client.list(apiVersion, kind, { limit: 1, labelSelector: `${LABELS.managedBy}=${MANAGED_BY_VALUE}`, fieldSelector: `metadata.name=${PROBE_NAME}` });
      this.failedProbes.delete(gvk);
      return undefined;
    } catch (error) {
      const reason = isForbidden(error) ? "forbidden: the controller is not allowed to list it (grant it through an aggregated ClusterRole)" : error instanceof Error ? error.message : String(error);
      this.failedProbes.set(gvk, { reason, at: Date.now() });
      return reason;
    }
  }

  /**
   * Cached children carrying `instanceUid` in their owner label, across every managed kind: the
   * second source of ownership beside the inventory (callers still check the creation key).
   */
  ownedBy(instanceUid: string): KubeJson[] {
    if (instanceUid === "") return [];
    return [...this.managed.values()].flatMap((lease) => lease.informer.store.byIndex(OWNER_INDEX, instanceUid) as KubeJson[]);
  }

  /** Records what an instance read this pass, so changes to those objects wake it. */
  setRequests(instanceKey: string, requests: readonly WatchRequest[]): void {
    if (requests.length === 0) this.requests.delete(instanceKey);
    else this.requests.set(instanceKey, requests);
  }

  forget(instanceKey: string): void {
    this.requests.delete(instanceKey);
  }

  lookup(overlay: Overlay): ObservedLookup {
    return {
      get: (identity) => {
        const own = overlay.get(identityKey(identity));
        if (own !== undefined) return own ?? undefined;
        const informer = this.informerFor(identity.apiVersion, identity.kind);
        return informer?.store.getByName(identity.namespace, identity.name);
      },
      list: (query) => {
        const informer = this.informerFor(query.apiVersion, query.kind);
        const cached = (informer?.store.list() ?? []).filter((o) => matchesQuery(o as KubeJson, query));
        const byKey = new Map<string, KubeJson>(cached.map((o) => [identityKey(identityFor(o as KubeJson)), o as KubeJson]));
        for (const [key, value] of overlay) {
          if (value === null) byKey.delete(key);
          else if (value.apiVersion === query.apiVersion && value.kind === query.kind && matchesQuery(value, query)) byKey.set(key, value);
        }
        return [...byKey.values()];
      },
    };
  }

  async stop(): Promise<void> {
    const leases = [...this.managed.values(), ...this.external.values()];
    this.managed.clear();
    this.external.clear();
    await Promise.all(leases.map((l) => l.release()));
  }

  /** The unfiltered informer when one exists (a superset), else the managed-children one. */
  private informerFor(apiVersion: string, kind: string): Informer | undefined {
    const gvk = JSON.stringify([apiVersion, kind]);
    return (this.external.get(gvk) ?? this.managed.get(gvk))?.informer;
  }

  private managedHandlers() {
    const route = (object: KubeObject) => {
      const key = this.ownerOf(object.metadata?.labels ?? {});
      if (key !== undefined) this.enqueue(key);
    };
    return { onAdd: route, onUpdate: (old: KubeObject, next: KubeObject) => { route(old); route(next); }, onDelete: route };
  }

  private externalHandlers(apiVersion: string, kind: string) {
    const route = (object: KubeObject) => {
      for (const [key, requests] of this.requests) {
        if (requests.some((r) => requestMatches(r, apiVersion, kind, object))) this.enqueue(key);
      }
    };
    return { onAdd: route, onUpdate: (old: KubeObject, next: KubeObject) => { route(old); route(next); }, onDelete: route };
  }
}

function requestMatches(request: WatchRequest, apiVersion: string, kind: string, object: KubeObject): boolean {
  if (request.apiVersion !== apiVersion || request.kind !== kind) return false;
  if ("name" in request) return request.name === object.metadata?.name && request.namespace === object.metadata.namespace;
  return matchesQuery(object, request);
}
