/**
 * Watches everything instances read or manage, and routes every event to the instances it
 * concerns — this is what makes progress event-driven (a dependency turning ready wakes its
 * instance at once) and what corrects drift. Managed children are found by the labels the
 * runtime puts on them, through one informer per child kind that lives as long as some served
 * graph (or a reconcile still running) needs the kind; external objects through informers
 * scoped to exactly what each instance references (external-scopes.ts). The same informer
 * stores back the runtime's ObservedLookup port.
 */
import { LABELS, MANAGED_BY_VALUE } from "../../api/index.js";
import type { KroCelEnvironment } from "../../expr/index.js";
import { coversMask, mergeMasks, type CompiledGraph, type CompiledNode, type FieldMask } from "../../graph/index.js";
import {
  informerKey,
  isForbidden,
  type InformerLease,
  type InformerManager,
  type InformerOptions,
  type KubeClient,
  type KubeObject,
} from "../../kube/index.js";
import {
  identityKey,
  identityOf,
  matchesQuery,
  type ExternalRequest,
  type KubeJson,
  type ObjectIdentity,
  type ObservedLookup,
} from "../../runtime/index.js";
import { CacheProjections, gvkKey, projectionTransform } from "./cache-projections.js";
import { ExternalScopes, type ScopeOutcome } from "./external-scopes.js";
import { KindHolds } from "./kind-holds.js";
import type { RemoteTarget, RemoteWatches } from "./remote-watches.js";

const SYNC_TIMEOUT_MS = 30_000;
/** How long a failed list probe of a kind is reused before the API server is asked again. */
const PROBE_RECHECK_MS = 5_000;
/** A name no object carries (names cannot contain "_"): the access probe lists it, one request. */
const PROBE_NAME = "kro_watch_probe";

/** The identity of an object we built or read back; those always have apiVersion, kind and name. */
export function identityFor(object: KubeJson): ObjectIdentity {
  const identity = identityOf(object);
  if (identity === undefined)
    throw new Error(`object without apiVersion, kind or name: ${JSON.stringify(object).slice(0, 200)}`);
  return identity;
}

const OWNER_INDEX = "owner-instance-id";
const ownerIndex = (object: KubeObject): string[] => {
  const uid = object.metadata?.labels?.[LABELS.instanceId];
  return uid === undefined ? [] : [uid];
};

/** Events that only echo a write of ours (context/own-writes.ts): they queue nothing. */
export interface EchoFilter {
  /** Runs `deliver` now, after our write in flight, or never (the echo of our own answer). */
  observe(object: KubeObject, deliver: () => void): void;
  forget(object: KubeObject): void;
}
const NO_ECHOES: EchoFilter = {
  observe: (_object, deliver) => {
    deliver();
  },
  forget: () => undefined,
};

/** Overlay of this reconcile's own writes (apply responses; null = deleted) over the caches. */
export type Overlay = Map<string, KubeJson | null>;

const isExternal = (node: CompiledNode): boolean => node.type === "external" || node.type === "externalCollection";

/** The managed child kinds of a graph (externals are watched per scope, see external-scopes.ts). */
export function managedKinds(graph: CompiledGraph): Set<string> {
  return new Set(graph.nodes.filter((n) => !isExternal(n)).map((n) => gvkKey(n.apiVersion, n.kind)));
}

interface ManagedWatch {
  readonly apiVersion: string;
  readonly kind: string;
  readonly lease: InformerLease<KubeObject>;
  readonly removeHandlers: () => void;
  /** What the cache keeps of each object (cache-projections.ts); narrowed in place, widened by a re-list. */
  mask: FieldMask;
  /** The label selector it lists and watches with. */
  readonly selector: string;
  /** While this watch's first list runs after a widening: the narrower watch it replaces, still read. */
  previous?: ManagedWatch | undefined;
}

/** The informer to read: a re-listing watch's predecessor until the re-list is in. */
const readable = (watch: ManagedWatch) =>
  (watch.previous !== undefined && !watch.lease.informer.hasSynced ? watch.previous : watch).lease.informer;

export class ChildWatches {
  /** gvk → the informer of our children of that kind (label-filtered, cluster-wide). */
  private readonly managed = new Map<string, ManagedWatch>();
  /** Which RGDs need which managed kinds: the rest is released (see kind-holds.ts). */
  private readonly holds = new KindHolds();
  private readonly externals: ExternalScopes;
  /** gvk → the last failed probe (RBAC, not served). */
  private readonly failedProbes = new Map<string, { readonly reason: string; readonly at: number }>();
  /** What each served graph needs of its children, and which graph each RGD serves. */
  private readonly projections: CacheProjections;
  private readonly served = new Map<string, CompiledGraph>();
  private variants = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly informers: InformerManager,
    /** The instance key a managed child belongs to, from its labels (undefined: not ours to route). */
    private readonly ownerOf: (labels: Readonly<Record<string, string>>) => string | undefined,
    private readonly enqueue: (instanceKey: string) => void,
    /** Children placed in other clusters (remote-watches.ts); absent: this controller targets none. */
    private readonly remote?: RemoteWatches,
    /**
     * With sharding: the selector term for the shards this replica holds (ShardScope), read when a
     * watch starts; rescope() applies a new one. Absent or undefined: every child of ours.
     */
    private readonly shardTerm: (apiVersion: string, kind: string) => string | undefined = () => undefined,
    /** The CEL environment the graphs were compiled with (~0.4 MB each: one is enough); absent: one of its own. */
    env?: KroCelEnvironment,
    private readonly echoes: EchoFilter = NO_ECHOES,
  ) {
    this.projections = new CacheProjections(env);
    this.externals = new ExternalScopes(informers, (scope) => this.probeScope(scope), enqueue);
  }

  /**
   * Starts (once) and waits for the informers every managed node of the graph needs. A kind this
   * controller may not list (RBAC) or that the server does not serve is not waited for: it is
   * returned as node id → reason, so the instance reconciles every other node and shows these
   * as errors (kro does the same: a forbidden child fails alone). A failed probe is remembered
   * for a few seconds, so many instances of one graph cost one probe, not one each.
   * External references are started per instance by watchExternals.
   */
  async ensure(graph: CompiledGraph): Promise<Map<string, string>> {
    const waits: Promise<void>[] = [];
    const unwatchable = new Map<string, string>();
    this.holds.use(graph.name, graph, managedKinds(graph));
    const needs = this.projections.needs(graph);
    for (const node of graph.nodes) {
      if (isExternal(node)) continue;
      const gvk = gvkKey(node.apiVersion, node.kind);
      const need = needs.get(gvk) ?? true;
      let watch = this.managed.get(gvk);
      // A graph reading a field the cache drops (an RGD update, or a reconcile of an older
      // graph): the kind is re-listed with the wider projection and this reconcile waits for it.
      if (watch !== undefined && !coversMask(watch.mask, need))
        watch = this.reproject(gvk, watch, mergeMasks(watch.mask, need));
      if (watch === undefined) {
        const reason = await this.probe(node.apiVersion, node.kind);
        if (reason !== undefined) {
          unwatchable.set(
            node.id,
            `cannot watch ${node.kind} (${node.apiVersion}) for resource "${node.id}": ${reason}`,
          );
          continue;
        }
        // Another reconcile may have started it while this one probed; a sweep may have run too.
        const mask = mergeMasks(this.projections.union(this.served.values(), gvk) ?? need, need);
        watch =
          this.managed.get(gvk) ??
          (this.holds.needed().has(gvk) ? this.startManaged(gvk, node.apiVersion, node.kind, mask) : undefined);
        if (watch === undefined) continue;
      }
      if (!watch.lease.informer.hasSynced) waits.push(watch.lease.informer.waitForSync({ timeoutMs: SYNC_TIMEOUT_MS }));
    }
    await Promise.all(waits);
    return unwatchable;
  }

  /**
   * The RGD serves `graph` now (undefined: nothing any more). Managed kinds that no served graph
   * and no running reconcile needs are released: their watches end and their caches go.
   */
  retain(rgdName: string, graph: CompiledGraph | undefined): void {
    this.holds.retain(rgdName, graph === undefined ? undefined : { graph, kinds: managedKinds(graph) });
    const previous = this.served.get(rgdName);
    if (graph === undefined) this.served.delete(rgdName);
    else this.served.set(rgdName, graph);
    this.sweep();
    // Only the kinds of the graph that changed can need another projection.
    const changed = new Set([
      ...(previous === undefined ? [] : managedKinds(previous)),
      ...(graph === undefined ? [] : managedKinds(graph)),
    ]);
    this.reprojectServed(changed);
  }

  /**
   * Fits each cache to what the served graphs need now: a wider need re-lists the kind (the old
   * cache is read until the new one is in); a narrower one applies to the objects that arrive
   * from now on (what is cached already keeps its extra fields, which nothing minds).
   */
  private reprojectServed(kinds: ReadonlySet<string>): void {
    for (const [gvk, watch] of this.managed) {
      if (!kinds.has(gvk)) continue;
      const target = this.projections.union(this.served.values(), gvk);
      if (target === undefined) continue;
      if (coversMask(watch.mask, target)) watch.mask = target;
      else this.reproject(gvk, watch, target);
    }
  }

  /** Replaces the kind's informer with one keeping `mask`, listed afresh. */
  private reproject(gvk: string, old: ManagedWatch, mask: FieldMask): ManagedWatch {
    // Keep reading the newest synced cache; one that never finished listing is dropped at once.
    const stillRead = old.lease.informer.hasSynced ? old : old.previous;
    old.previous = undefined;
    if (stillRead !== old) this.retire(old);
    const next = this.startManaged(gvk, old.apiVersion, old.kind, mask);
    next.previous = stillRead;
    void next.lease.informer.waitForSync().then(() => {
      if (next.previous === undefined) return;
      this.retire(next.previous);
      next.previous = undefined;
    });
    return next;
  }

  private retire(watch: ManagedWatch): void {
    watch.removeHandlers();
    void watch.lease.release();
    if (watch.previous !== undefined) this.retire(watch.previous);
    watch.previous = undefined;
  }

  /** A reconcile of this RGD's instances runs: what it uses is not released under it. */
  begin(rgdName: string): void {
    this.holds.begin(rgdName);
  }

  end(rgdName: string): void {
    if (this.holds.end(rgdName)) this.sweep();
  }

  /**
   * Watches the external references this instance read, each in its own scope, and releases the
   * scopes it no longer reads. `started`: a new scope synced, so evaluate again.
   */
  watchExternals(instanceKey: string, requests: readonly ExternalRequest[]): Promise<ScopeOutcome> {
    return this.externals.hold(instanceKey, requests);
  }

  /** Watches the remote clusters and kinds these nodes target; node id → why a cluster cannot be used now. */
  async ensureRemote(targets: readonly RemoteTarget[]): Promise<{ errors: Map<string, string>; started: boolean }> {
    if (targets.length === 0) return { errors: new Map(), started: false };
    if (this.remote === undefined)
      return {
        errors: new Map(
          targets.map((t) => [
            t.nodeId,
            `cluster "${t.cluster}" is not registered: this controller reads no cluster registrations`,
          ]),
        ),
        started: false,
      };
    return this.remote.ensure(targets);
  }

  /** What runs now, for tests and diagnostics: managed kinds and external scopes. */
  get watching(): { managed: string[]; externalScopes: number } {
    return { managed: [...this.managed.keys()], externalScopes: this.externals.size };
  }

  /**
   * The held shards changed: each managed kind is listed afresh with the new selection; the old
   * cache is read until the new one is in (the same hand-over as a wider projection). Resolves
   * once every kind has listed.
   */
  async rescope(): Promise<void> {
    const next = [...this.managed]
      .filter(([, w]) => w.selector !== this.selectorFor(w.apiVersion, w.kind))
      .map(([gvk, watch]) => this.reproject(gvk, watch, watch.mask));
    await Promise.all(next.map((w) => w.lease.informer.waitForSync({ timeoutMs: SYNC_TIMEOUT_MS })));
  }

  private startManaged(gvk: string, apiVersion: string, kind: string, mask: FieldMask): ManagedWatch {
    const projection = { mask };
    const selector = this.selectorFor(apiVersion, kind);
    const lease = this.informers.acquire({
      apiVersion,
      kind,
      labelSelector: selector,
      indexers: { [OWNER_INDEX]: ownerIndex },
      // Its own informer: another user of the same selection must not see our projection.
      variant: `projection-${++this.variants}`,
      transform: projectionTransform(() => projection.mask),
    });
    const watch: ManagedWatch = {
      apiVersion,
      kind,
      lease,
      selector,
      removeHandlers: lease.informer.addHandlers(this.managedHandlers()),
      get mask() {
        return projection.mask;
      },
      set mask(value: FieldMask) {
        projection.mask = value;
      },
    };
    this.managed.set(gvk, watch);
    return watch;
  }

  private selectorFor(apiVersion: string, kind: string): string {
    const term = this.shardTerm(apiVersion, kind);
    return `${LABELS.managedBy}=${MANAGED_BY_VALUE}${term === undefined ? "" : `,${term}`}`;
  }

  private sweep(): void {
    const needed = this.holds.needed();
    for (const [gvk, watch] of this.managed) {
      if (needed.has(gvk)) continue;
      this.managed.delete(gvk);
      this.failedProbes.delete(gvk);
      this.retire(watch);
    }
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
      await this.client.list(apiVersion, kind, {
        limit: 1,
        labelSelector: `${LABELS.managedBy}=${MANAGED_BY_VALUE}`,
        fieldSelector: `metadata.name=${PROBE_NAME}`,
      });
      this.failedProbes.delete(gvk);
      return undefined;
    } catch (error) {
      const reason = isForbidden(error)
        ? "forbidden: the controller is not allowed to list it (grant it through an aggregated ClusterRole)"
        : error instanceof Error
          ? error.message
          : String(error);
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
    return [
      ...[...this.managed.values()].flatMap((w) => readable(w).store.byIndex(OWNER_INDEX, instanceUid) as KubeJson[]),
      ...(this.remote?.ownedBy(instanceUid) ?? []),
    ];
  }

  /** The instance is gone: the external scopes it held are released when no one else reads them. */
  forget(instanceKey: string): void {
    this.externals.forget(instanceKey);
  }

  lookup(overlay: Overlay): ObservedLookup {
    return {
      get: (identity) => {
        const own = overlay.get(identityKey(identity));
        if (own !== undefined) return own ?? undefined;
        // A child in another cluster is read from that cluster's watch only, never from ours.
        if (identity.cluster !== undefined)
          return this.remote?.storeFor(identity)?.getByName(identity.namespace, identity.name);
        const watch = this.managed.get(gvkKey(identity.apiVersion, identity.kind));
        const informer = this.externals.informerFor(identity) ?? (watch === undefined ? undefined : readable(watch));
        return informer?.store.getByName(identity.namespace, identity.name);
      },
      list: (query) => {
        const watch = this.managed.get(gvkKey(query.apiVersion, query.kind));
        const external = this.externals.informerFor(query);
        const informer = external ?? (watch === undefined ? undefined : readable(watch));
        // Our own children (a collection) may have items in other clusters too.
        const remote = external === undefined ? (this.remote?.listKind(query.apiVersion, query.kind) ?? []) : [];
        const cached = [...(informer?.store.list() ?? []), ...remote].filter((o) => matchesQuery(o as KubeJson, query));
        const byKey = new Map<string, KubeJson>(
          cached.map((o) => [identityKey(identityFor(o as KubeJson)), o as KubeJson]),
        );
        for (const [key, value] of overlay) {
          if (value === null) byKey.delete(key);
          else if (value.apiVersion === query.apiVersion && value.kind === query.kind && matchesQuery(value, query))
            byKey.set(key, value);
        }
        return [...byKey.values()];
      },
    };
  }

  async stop(): Promise<void> {
    const leases = [...this.managed.values()].flatMap((w) => [
      w.lease,
      ...(w.previous === undefined ? [] : [w.previous.lease]),
    ]);
    this.managed.clear();
    await Promise.all([...leases.map((l) => l.release()), this.externals.stop(), this.remote?.stop()]);
  }

  /** Undefined when this exact scope can be listed (one empty page: a name no object has). */
  private async probeScope(scope: InformerOptions): Promise<string | undefined> {
    const key = informerKey(scope);
    const recent = this.failedProbes.get(key);
    if (recent !== undefined && Date.now() - recent.at < PROBE_RECHECK_MS) return recent.reason;
    try {
      await this.client.list(scope.apiVersion, scope.kind, {
        limit: 1,
        namespace: scope.namespace,
        labelSelector: scope.labelSelector,
        fieldSelector: scope.fieldSelector ?? `metadata.name=${PROBE_NAME}`,
      });
      this.failedProbes.delete(key);
      return undefined;
    } catch (error) {
      const reason = isForbidden(error)
        ? `forbidden: the controller is not allowed to list it${scope.namespace === undefined ? "" : ` in namespace ${scope.namespace}`}`
        : error instanceof Error
          ? error.message
          : String(error);
      this.failedProbes.set(key, { reason, at: Date.now() });
      return reason;
    }
  }

  private managedHandlers() {
    const owner = (object: KubeObject) => this.ownerOf(object.metadata?.labels ?? {});
    const enqueue = (key: string | undefined) => {
      if (key !== undefined) this.enqueue(key);
    };
    const route = (object: KubeObject) => {
      enqueue(owner(object));
    };
    return {
      // The answer to our own apply, seen again: the pass that wrote it has acted on it.
      onAdd: (object: KubeObject) => {
        this.echoes.observe(object, () => {
          route(object);
        });
      },
      onUpdate: (old: KubeObject, next: KubeObject) => {
        const [was, is] = [owner(old), owner(next)];
        if (was === is) {
          this.echoes.observe(next, () => {
            enqueue(is);
          });
          return;
        }
        enqueue(was);
        enqueue(is);
      },
      onDelete: (object: KubeObject) => {
        this.echoes.forget(object);
        route(object);
      },
    };
  }
}
