/**
 * One web-view session per signed-in user (and namespace asked for): a KubeClient built from the
 * user's own bearer token — the controller's API server and CA, none of the controller's
 * credentials — and the snapshot read with it, so the API server's RBAC decides every object the
 * page shows. Sessions idle for a while, or beyond the most kept, are dropped and their clients closed.
 */
import { LRUCache } from "lru-cache";
import { createSnapshotReader, snapshotSession, type GraphSource, type UiSession } from "../../inspect/index.js";
import { createKubeClient, type KubeClient } from "../../kube/index.js";
import { tokenKey, type ReviewedUser } from "./token-review.js";
import { registeredClusterClients, type RegisteredClusterClients } from "../clusters/index.js";

export interface UserSessionOptions {
  /** The controller's client: only its API server and TLS trust are used. */
  readonly client: KubeClient;
  readonly graphs: GraphSource;
  readonly refreshMs: number;
  /** The RGDs this controller serves (its --rgd-selector). */
  readonly rgdSelector?: string;
  /** Where member clusters are registered (the controller's --cluster-namespace): their children are read there, with the person's rights on the registrations. */
  readonly clusterNamespace?: string;
  readonly userAgent?: string;
  /** Sessions kept at once (default 64) and how long an unused one lives (default 5 min). */
  readonly maxSessions?: number;
  readonly idleMs?: number;
}

interface Entry {
  readonly client: KubeClient;
  readonly clusters?: RegisteredClusterClients;
  readonly session: UiSession;
}

export class UserSessions {
  private readonly sessions: LRUCache<string, Entry>;

  constructor(private readonly options: UserSessionOptions) {
    this.sessions = new LRUCache<string, Entry>({
      max: options.maxSessions ?? 64,
      ttl: options.idleMs ?? 5 * 60_000,
      updateAgeOnGet: true,
      dispose: (entry) => {
        entry.clusters?.close();
        entry.client.close();
      },
    });
  }

  /**
   * The session of this token's user. `namespace` (asked for with ?namespace=) limits the view to
   * it; otherwise every namespace the user may list, or `fallbackNamespace` when listing all is refused.
   */
  async sessionFor(
    token: string,
    user: ReviewedUser,
    namespace: string | undefined,
    fallbackNamespace: string,
  ): Promise<UiSession> {
    const key = `${tokenKey(token)}\n${namespace ?? ""}`;
    const known = this.sessions.get(key);
    if (known !== undefined) return known.session;
    const client = await createKubeClient({
      connection: this.options.client.connectionFor(
        token,
        namespace ?? fallbackNamespace,
        `web view user ${user.username}`,
      ),
      // A person's page must not take the controller's request budget, nor wait long for an answer.
      qps: 20,
      burst: 40,
      maxRetries: 1,
      requestTimeoutMs: 15_000,
      ...(this.options.userAgent === undefined ? {} : { userAgent: this.options.userAgent }),
    });
    const raced = this.sessions.get(key); // another request made it meanwhile
    if (raced !== undefined) {
      client.close();
      return raced.session;
    }
    const clusters =
      this.options.clusterNamespace === undefined
        ? undefined
        : registeredClusterClients(client, this.options.clusterNamespace);
    const reader = createSnapshotReader(client, {
      graphs: () => this.options.graphs,
      as: user.username,
      ...(this.options.rgdSelector === undefined ? {} : { selector: this.options.rgdSelector }),
      ...(namespace === undefined ? {} : { namespace }),
      ...(clusters === undefined ? {} : { clusters }),
    });
    const entry = {
      client,
      ...(clusters === undefined ? {} : { clusters }),
      session: snapshotSession(reader, this.options.refreshMs),
    };
    this.sessions.set(key, entry);
    return entry.session;
  }

  get size(): number {
    return this.sessions.size;
  }

  close(): void {
    this.sessions.clear();
  }
}
