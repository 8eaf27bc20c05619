/**
 * Watches of children placed in other clusters (docs/design/clusters.md): one informer per
 * (cluster, kind), shared by every instance, selected by our managed-by label and routed to the
 * owning instance like a local child — so a remote child edited by hand is corrected, and a
 * remote child's status wakes its dependents. A cluster that cannot be listed (unreachable,
 * unauthorised, kind not served) is reported per node, naming the cluster and the error; the
 * answer is remembered for a few seconds so many instances cost one request per cluster and kind.
 */
import { LABELS, MANAGED_BY_VALUE } from "../../api/index.js";
import type { InformerLease, KubeObject } from "../../kube/index.js";
import type { KubeJson, ObjectIdentity } from "../../runtime/index.js";
import type { ClusterConnections } from "../clusters/index.js";
import { gvkKey } from "./cache-projections.js";

const PROBE_RECHECK_MS = 5_000;
const SYNC_TIMEOUT_MS = 10_000;
const PROBE_NAME = "kro_watch_probe";
const OWNER_INDEX = "owner-instance-id";

/** A remote node to watch: its id (for errors) and where its objects live. */
export interface RemoteTarget {
  readonly nodeId: string;
  readonly cluster: string;
  readonly apiVersion: string;
  readonly kind: string;
}

interface RemoteWatch {
  readonly cluster: string;
  readonly lease: InformerLease<KubeObject>;
  readonly removeHandlers: () => void;
}

const watchKey = (cluster: string, apiVersion: string, kind: string): string =>
  `${cluster}\u0000${gvkKey(apiVersion, kind)}`;

export class RemoteWatches {
  private readonly watches = new Map<string, RemoteWatch>();
  private readonly probes = new Map<string, { readonly reason: string | undefined; readonly at: number }>();

  constructor(
    private readonly clusters: ClusterConnections,
    private readonly ownerOf: (labels: Readonly<Record<string, string>>) => string | undefined,
    private readonly enqueue: (instanceKey: string) => void,
  ) {
    clusters.onChange((cluster) => {
      this.retireCluster(cluster);
    });
  }

  /**
   * Starts (once) and waits for the watches of these targets. Returns node id → why its cluster
   * cannot be used now, and whether a watch synced for the first time (evaluate again).
   */
  async ensure(targets: readonly RemoteTarget[]): Promise<{ errors: Map<string, string>; started: boolean }> {
    const errors = new Map<string, string>();
    let started = false;
    const byWatch = new Map<string, RemoteTarget[]>();
    for (const target of targets) {
      const key = watchKey(target.cluster, target.apiVersion, target.kind);
      byWatch.set(key, [...(byWatch.get(key) ?? []), target]);
    }
    await Promise.all(
      [...byWatch].map(async ([key, group]) => {
        const first = group[0] as RemoteTarget;
        const reason = await this.probe(key, first);
        const fail = (why: string) => {
          for (const t of group) errors.set(t.nodeId, `cluster "${t.cluster}": ${why}`);
        };
        if (reason !== undefined) {
          fail(reason);
          return;
        }
        let watch = this.watches.get(key);
        if (watch === undefined) {
          const connection = await this.clusters.clientFor(first.cluster);
          if ("error" in connection) {
            fail(connection.error);
            return;
          }
          watch =
            this.watches.get(key) ??
            this.start(
              key,
              first.cluster,
              connection.client.informers.acquire({
                apiVersion: first.apiVersion,
                kind: first.kind,
                labelSelector: `${LABELS.managedBy}=${MANAGED_BY_VALUE}`,
                indexers: {
                  [OWNER_INDEX]: (o: KubeObject) => {
                    const uid = o.metadata?.labels?.[LABELS.instanceId];
                    return uid === undefined ? [] : [uid];
                  },
                },
              }),
            );
        }
        if (watch.lease.informer.hasSynced) return;
        try {
          await watch.lease.informer.waitForSync({ timeoutMs: SYNC_TIMEOUT_MS });
          started = true;
        } catch (error) {
          fail(error instanceof Error ? error.message : String(error));
        }
      }),
    );
    return { errors, started };
  }

  /** The informer holding objects of this identity's cluster and kind (undefined: local, or not watched). */
  storeFor(
    identity: Pick<ObjectIdentity, "apiVersion" | "kind" | "cluster">,
  ): { getByName(ns: string | undefined, name: string): KubeObject | undefined; list(): KubeObject[] } | undefined {
    if (identity.cluster === undefined) return undefined;
    return this.watches.get(watchKey(identity.cluster, identity.apiVersion, identity.kind))?.lease.informer.store;
  }

  /** Every cluster's cached objects of this kind (a collection's items may live in several). */
  listKind(apiVersion: string, kind: string): KubeObject[] {
    const gvk = gvkKey(apiVersion, kind);
    return [...this.watches]
      .filter(([key]) => key.endsWith(`\u0000${gvk}`))
      .flatMap(([, w]) => w.lease.informer.store.list());
  }

  /** Cached remote children labelled with this instance UID (the creation key is checked by callers). */
  ownedBy(instanceUid: string): KubeJson[] {
    return [...this.watches.values()].flatMap(
      (w) => w.lease.informer.store.byIndex(OWNER_INDEX, instanceUid) as KubeJson[],
    );
  }

  private start(key: string, cluster: string, lease: InformerLease<KubeObject>): RemoteWatch {
    const route = (object: KubeObject) => {
      const owner = this.ownerOf(object.metadata?.labels ?? {});
      if (owner !== undefined) this.enqueue(owner);
    };
    const watch: RemoteWatch = {
      cluster,
      lease,
      removeHandlers: lease.informer.addHandlers({
        onAdd: route,
        onUpdate: (a, b) => {
          route(a);
          route(b);
        },
        onDelete: route,
      }),
    };
    this.watches.set(key, watch);
    return watch;
  }

  /** One list request, a name no object has: can this cluster's kind be listed now? */
  private async probe(key: string, target: RemoteTarget): Promise<string | undefined> {
    const recent = this.probes.get(key);
    if (recent !== undefined && Date.now() - recent.at < PROBE_RECHECK_MS) return recent.reason;
    const connection = await this.clusters.clientFor(target.cluster);
    let reason: string | undefined;
    if ("error" in connection) reason = connection.error;
    else {
      try {
        await connection.client.list(target.apiVersion, target.kind, {
          limit: 1,
          labelSelector: `${LABELS.managedBy}=${MANAGED_BY_VALUE}`,
          fieldSelector: `metadata.name=${PROBE_NAME}`,
        });
      } catch (error) {
        reason = `cannot list ${target.kind} (${target.apiVersion}): ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    this.probes.set(key, { reason, at: Date.now() });
    return reason;
  }

  /** The cluster's registration changed: its watches go (their owners are woken to re-list with the new client). */
  private retireCluster(cluster: string): void {
    for (const [key, watch] of this.watches) {
      if (watch.cluster !== cluster) continue;
      this.watches.delete(key);
      const owners = watch.lease.informer.store.list().map((o) => this.ownerOf(o.metadata?.labels ?? {}));
      watch.removeHandlers();
      void watch.lease.release();
      for (const owner of owners) if (owner !== undefined) this.enqueue(owner);
    }
    for (const key of [...this.probes.keys()]) if (key.startsWith(`${cluster}\u0000`)) this.probes.delete(key);
  }

  async stop(): Promise<void> {
    const leases = [...this.watches.values()].map((w) => w.lease);
    this.watches.clear();
    await Promise.all(leases.map((l) => l.release()));
  }
}
