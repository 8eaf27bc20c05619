/**
 * The clusters an RGD may place children in, read from registration Secrets in the controller's
 * namespace (kubeconfig-secret.ts), with one client per cluster: its own connection pool, rate
 * limit and timeouts, so a dead or slow cluster never spends the request budget of live ones.
 * A changed Secret (rotated credentials, new server) replaces the client at once, without a
 * restart; `onChange` tells the watches to re-list that cluster with the new client.
 */
import { createKubeClient, type InformerLease, type InformerManager, type KubeClient, type KubeObject } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import { CLUSTER_NAME_LABELS, readRegistration, registeredName, type Registration } from "./kubeconfig-secret.js";

/** A remote request gives up sooner than a local one: a dead cluster must not hold a worker long. */
const REMOTE_REQUEST_TIMEOUT_MS = 10_000;

export type ClusterClient = { readonly client: KubeClient } | { readonly error: string };

/** What the reconcilers ask of the registry. */
export interface ClusterConnections {
  /** The client of a registered cluster, or why there is none (the message names the cluster). */
  clientFor(cluster: string): Promise<ClusterClient>;
  /** Called with a cluster's name when its registration changed or went away. */
  onChange(listener: (cluster: string) => void): void;
  /** Some registration names this cluster (usable or not): children may have been placed there. */
  registered(cluster: string): boolean;
}

interface Connected { readonly fingerprint: string; readonly client: Promise<KubeClient> }

export class ClusterRegistry implements ClusterConnections {
  private readonly leases: InformerLease<KubeObject>[] = [];
  private readonly connected = new Map<string, Connected>();
  private readonly listeners: ((cluster: string) => void)[] = [];

  constructor(private readonly informers: InformerManager, private readonly namespace: string | undefined, private readonly logger: Logger) {}

  /** Starts watching registrations (nothing without a namespace: no cluster can be targeted). */
  async start(): Promise<void> {
    if (this.namespace === undefined) return;
    for (const label of CLUSTER_NAME_LABELS) {
      const lease = this.informers.acquire({ apiVersion: "v1", kind: "Secret", namespace: this.namespace, labelSelector: label });
      const changed = (secret: KubeObject) => { const name = registeredName(secret); if (name !== undefined) this.refresh(name); };
      lease.informer.addHandlers({ onAdd: changed, onUpdate: (old, next) => { changed(old); changed(next); }, onDelete: changed });
      this.leases.push(lease);
    }
    await Promise.all(this.leases.map((l) => l.informer.waitForSync({ timeoutMs: 30_000 })));
  }

  onChange(listener: (cluster: string) => void): void {
    this.listeners.push(listener);
  }

  registered(cluster: string): boolean {
    return this.leases.some((l) => l.informer.store.list().some((s) => registeredName(s) === cluster));
  }

  async clientFor(cluster: string): Promise<ClusterClient> {
    const registration = this.registration(cluster);
    if ("error" in registration) return registration;
    let connected = this.connected.get(cluster);
    if (connected?.fingerprint !== registration.fingerprint) {
      if (connected !== undefined) {
        this.drop(cluster);
        this.emit(cluster);
      }
      connected = {
        fingerprint: registration.fingerprint,
        client: createKubeClient({ connection: registration.connection, requestTimeoutMs: REMOTE_REQUEST_TIMEOUT_MS, maxRetries: 1, userAgent: "kro-ts" }),
      };
      this.connected.set(cluster, connected);
      this.logger.info({ cluster, source: registration.connection.source, server: registration.connection.server }, "connected to registered cluster");
    }
    try {
      return { client: await connected.client };
    } catch (error) {
      return { error: `cluster "${cluster}": ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  private registration(cluster: string): Registration {
    if (this.namespace === undefined) return { cluster, error: `cluster "${cluster}" is not registered: the controller reads no cluster registrations (start it with a cluster namespace)` };
    const secrets = this.leases.flatMap((l) => l.informer.store.list()).filter((s) => registeredName(s) === cluster)
      .sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""));
    const names = [...new Set(secrets.map((s) => s.metadata?.name))];
    if (names.length === 0) return { cluster, error: `cluster "${cluster}" is not registered (no Secret in namespace ${this.namespace} labelled ${CLUSTER_NAME_LABELS.join(" or ")}=${cluster})` };
    if (names.length > 1) return { cluster, error: `cluster "${cluster}" is registered twice (Secrets ${names.join(", ")} in ${this.namespace}): refusing to guess` };
    return readRegistration(secrets[0] as KubeObject) ?? { cluster, error: `cluster "${cluster}" is not registered` };
  }

  /** A registration Secret changed: a new fingerprint means a new client (and re-listed watches). */
  private refresh(cluster: string): void {
    const current = this.connected.get(cluster);
    if (current === undefined) { this.emit(cluster); return; }
    const registration = this.registration(cluster);
    if ("fingerprint" in registration && registration.fingerprint === current.fingerprint) return;
    this.logger.info({ cluster }, "cluster registration changed: reconnecting");
    this.drop(cluster);
    this.emit(cluster);
  }

  private emit(cluster: string): void {
    for (const listener of this.listeners) listener(cluster);
  }

  private drop(cluster: string): void {
    const old = this.connected.get(cluster);
    this.connected.delete(cluster);
    // Closed once its watches are retired (onChange runs first, synchronously).
    if (old !== undefined) void old.client.then((c) => setTimeout(() => { c.close(); }, 1_000), () => undefined);
  }

  async stop(): Promise<void> {
    await Promise.all(this.leases.map((l) => l.release()));
    for (const cluster of [...this.connected.keys()]) this.drop(cluster);
  }
}
