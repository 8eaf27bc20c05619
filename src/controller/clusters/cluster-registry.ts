/**
 * The clusters an RGD may place children in, read from registration Secrets in the controller's
 * namespace (kubeconfig-secret.ts) and, where the hub serves the Cluster Inventory API, from the
 * ClusterProfiles there (cluster-profile.ts; a kubeconfig Secret naming the same cluster wins),
 * with one client per cluster: its own connection pool, rate limit and timeouts, so a dead or
 * slow cluster never spends the request budget of live ones. A changed registration (rotated
 * credentials, new server) replaces the client at once, without a restart; `onChange` tells the
 * watches to re-list that cluster with the new client.
 */
import {
  createKubeClient,
  type InformerLease,
  type InformerManager,
  type KubeClient,
  type KubeObject,
  type ResourceInfo,
} from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import { CLUSTER_NAME_LABELS, registeredName, type Registration } from "./kubeconfig-secret.js";
import { CLUSTER_PROFILE, profileCluster, profileTokenSecret } from "./cluster-profile.js";
import { chooseRegistration } from "./registration-choice.js";

/** How often a missing ClusterProfile API is looked for again (a CRD installed after the start). */
const PROFILE_API_RECHECK_MS = 30_000;
const SYNC_TIMEOUT_MS = 30_000;

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

interface Connected {
  readonly fingerprint: string;
  readonly client: Promise<KubeClient>;
}

export class ClusterRegistry implements ClusterConnections {
  private readonly leases: InformerLease<KubeObject>[] = [];
  private readonly connected = new Map<string, Connected>();
  private readonly listeners: ((cluster: string) => void)[] = [];
  /** ClusterProfiles and the Secrets holding their tokens, once the hub serves the API. */
  private profiles:
    { readonly profiles: InformerLease<KubeObject>; readonly secrets: InformerLease<KubeObject> } | undefined;
  private profileCheck: { at: number; running: Promise<void> | undefined } | undefined;

  /** `resourceFor` answers whether the hub serves the ClusterProfile API (discovery). */
  constructor(
    private readonly informers: InformerManager,
    private readonly namespace: string | undefined,
    private readonly logger: Logger,
    private readonly discovery?: { resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> },
  ) {}

  /** Starts watching registrations (nothing without a namespace: no cluster can be targeted). */
  async start(): Promise<void> {
    if (this.namespace === undefined) return;
    for (const label of CLUSTER_NAME_LABELS) {
      const lease = this.informers.acquire({
        apiVersion: "v1",
        kind: "Secret",
        namespace: this.namespace,
        labelSelector: label,
      });
      const changed = (secret: KubeObject) => {
        const name = registeredName(secret);
        if (name !== undefined) this.refresh(name);
      };
      lease.informer.addHandlers({
        onAdd: changed,
        onUpdate: (old, next) => {
          changed(old);
          changed(next);
        },
        onDelete: changed,
      });
      this.leases.push(lease);
    }
    await Promise.all(this.leases.map((l) => l.informer.waitForSync({ timeoutMs: SYNC_TIMEOUT_MS })));
    await this.watchProfiles();
  }

  /**
   * Watches ClusterProfiles (and every Secret of the namespace: a token Secret carries no label)
   * when the hub serves the API; looked for again at most every 30 s while it does not, so a CRD
   * installed later is picked up at the first use of a cluster nothing else registers.
   */
  private watchProfiles(): Promise<void> {
    if (this.namespace === undefined || this.discovery === undefined || this.profiles !== undefined)
      return Promise.resolve();
    if (this.profileCheck?.running !== undefined) return this.profileCheck.running;
    if (this.profileCheck !== undefined && Date.now() - this.profileCheck.at < PROFILE_API_RECHECK_MS)
      return Promise.resolve();
    const namespace = this.namespace;
    const discovery = this.discovery;
    const check = { at: Date.now(), running: undefined as Promise<void> | undefined };
    check.running = (async () => {
      try {
        await discovery.resourceFor(CLUSTER_PROFILE.apiVersion, CLUSTER_PROFILE.kind);
      } catch {
        return; // not served (or discovery failed): Secrets only, looked for again later
      }
      const profiles = this.informers.acquire({ ...CLUSTER_PROFILE, namespace });
      const secrets = this.informers.acquire({ apiVersion: "v1", kind: "Secret", namespace });
      try {
        await Promise.all([
          profiles.informer.waitForSync({ timeoutMs: SYNC_TIMEOUT_MS }),
          secrets.informer.waitForSync({ timeoutMs: SYNC_TIMEOUT_MS }),
        ]);
      } catch (error) {
        // RBAC may not grant it (the chart does with clusters.enabled): Secrets only, looked for again later.
        this.logger.warn(
          { err: error instanceof Error ? error.message : String(error), namespace },
          "cannot watch ClusterProfiles; clusters are registered by kubeconfig Secrets only",
        );
        await Promise.all([profiles.release(), secrets.release()]);
        return;
      }
      const profileChanged = (profile: KubeObject) => {
        const cluster = profileCluster(profile);
        if (cluster !== undefined) this.refresh(cluster);
      };
      profiles.informer.addHandlers({
        onAdd: profileChanged,
        onUpdate: (old, next) => {
          profileChanged(old);
          profileChanged(next);
        },
        onDelete: profileChanged,
      });
      const secretChanged = (secret: KubeObject) => {
        for (const profile of profiles.informer.store.list()) {
          const cluster = profileCluster(profile);
          if (cluster !== undefined && profileTokenSecret(profile) === secret.metadata?.name) this.refresh(cluster);
        }
      };
      secrets.informer.addHandlers({
        onAdd: secretChanged,
        onUpdate: (_old, next) => {
          secretChanged(next);
        },
        onDelete: secretChanged,
      });
      this.profiles = { profiles, secrets };
      this.logger.info({ namespace }, "reading cluster registrations from ClusterProfiles too");
      for (const profile of profiles.informer.store.list()) {
        const cluster = profileCluster(profile);
        if (cluster !== undefined) this.emit(cluster);
      }
    })().finally(() => {
      check.running = undefined;
    });
    this.profileCheck = check;
    return check.running;
  }

  onChange(listener: (cluster: string) => void): void {
    this.listeners.push(listener);
  }

  registered(cluster: string): boolean {
    return this.secretsNaming(cluster).length > 0 || this.profileNaming(cluster) !== undefined;
  }

  async clientFor(cluster: string): Promise<ClusterClient> {
    if (!this.registered(cluster)) await this.watchProfiles();
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
        client: createKubeClient({
          connection: registration.connection,
          requestTimeoutMs: REMOTE_REQUEST_TIMEOUT_MS,
          maxRetries: 1,
          userAgent: "kro-ts",
        }),
      };
      this.connected.set(cluster, connected);
      this.logger.info(
        { cluster, source: registration.connection.source, server: registration.connection.server },
        "connected to registered cluster",
      );
    }
    try {
      return { client: await connected.client };
    } catch (error) {
      return { error: `cluster "${cluster}": ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  private secretsNaming(cluster: string): KubeObject[] {
    return this.leases.flatMap((l) => l.informer.store.list()).filter((s) => registeredName(s) === cluster);
  }

  private profileNaming(cluster: string): KubeObject | undefined {
    return this.profiles?.profiles.informer.store.list().find((p) => profileCluster(p) === cluster);
  }

  private registration(cluster: string): Registration {
    if (this.namespace === undefined)
      return {
        cluster,
        error: `cluster "${cluster}" is not registered: the controller reads no cluster registrations (start it with a cluster namespace)`,
      };
    const secrets = this.secretsNaming(cluster);
    // A Secret wins over a profile, so profiles are looked through only when no Secret names the cluster.
    const profile = secrets.length === 0 ? this.profileNaming(cluster) : undefined;
    return chooseRegistration({
      cluster,
      namespace: this.namespace,
      secrets,
      profile,
      profileToken:
        profile === undefined
          ? undefined
          : this.profiles?.secrets.informer.store.getByName(this.namespace, profileTokenSecret(profile)),
      profilesRead: this.profiles !== undefined,
    });
  }

  /** A registration Secret changed: a new fingerprint means a new client (and re-listed watches). */
  private refresh(cluster: string): void {
    const current = this.connected.get(cluster);
    if (current === undefined) {
      this.emit(cluster);
      return;
    }
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
    if (old !== undefined)
      void old.client.then(
        (c) =>
          setTimeout(() => {
            c.close();
          }, 1_000),
        () => undefined,
      );
  }

  async stop(): Promise<void> {
    await this.profileCheck?.running;
    const profiles = this.profiles === undefined ? [] : [this.profiles.profiles, this.profiles.secrets];
    this.profiles = undefined;
    await Promise.all([...this.leases, ...profiles].map((l) => l.release()));
    for (const cluster of [...this.connected.keys()]) this.drop(cluster);
  }
}
