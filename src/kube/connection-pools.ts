/**
 * Two connection pools per client, so that no request ever waits on a watch: HTTP/1.1 carries one
 * watch per socket for as long as it lives, so watches get an unbounded agent of their own and
 * ordinary requests a bounded one they never share with a watch. Both follow a client
 * certificate that an exec plugin rotates. (Why not HTTP/2: docs/design/kube-client.md.)
 */
import http from "node:http";
import https from "node:https";
import type { ConnectionConfig } from "./connection-config.js";
import type { RequestCredentials } from "./credentials.js";

export type PoolName = "request" | "watch";

/** Sockets for ordinary requests (get, list, apply, …); more wait in the agent's queue. */
export const DEFAULT_MAX_REQUEST_SOCKETS = 64;

export class ConnectionPools {
  private readonly isHttps: boolean;
  private agents: Record<PoolName, http.Agent>;
  private cert: Buffer | undefined;

  constructor(
    private readonly config: ConnectionConfig,
    private readonly maxRequestSockets = DEFAULT_MAX_REQUEST_SOCKETS,
  ) {
    this.isHttps = new URL(config.server).protocol === "https:";
    this.agents = this.makeAgents(undefined);
  }

  /** The agent of one pool for these credentials (rebuilt when the client certificate changed). */
  agent(pool: PoolName, creds: RequestCredentials): http.Agent {
    const same =
      creds.clientCert === this.cert ||
      (creds.clientCert !== undefined && this.cert?.equals(creds.clientCert) === true);
    if (!same) {
      this.destroy();
      this.agents = this.makeAgents(creds);
    }
    return this.agents[pool];
  }

  /** Sockets open and requests queued for a socket, per pool (for tests and diagnostics). */
  stats(): Record<PoolName, { sockets: number; queued: number }> {
    const count = (byHost: NodeJS.ReadOnlyDict<readonly unknown[]>): number =>
      Object.values(byHost).reduce((n, list) => n + (list?.length ?? 0), 0);
    const one = (a: http.Agent) => ({ sockets: count(a.sockets), queued: count(a.requests) });
    return { request: one(this.agents.request), watch: one(this.agents.watch) };
  }

  destroy(): void {
    this.agents.request.destroy();
    this.agents.watch.destroy();
  }

  private makeAgents(creds: RequestCredentials | undefined): Record<PoolName, http.Agent> {
    this.cert = creds?.clientCert;
    return {
      request: this.makeAgent(creds, this.maxRequestSockets),
      // One socket per watch is inherent to HTTP/1.1: a bound here would only make the
      // (N+1)th informer hang. The number of watches is bounded by what the controller serves.
      watch: this.makeAgent(creds, Infinity),
    };
  }

  private makeAgent(creds: RequestCredentials | undefined, maxSockets: number): http.Agent {
    if (!this.isHttps) return new http.Agent({ keepAlive: true, maxSockets });
    const c = this.config;
    return new https.Agent({
      keepAlive: true,
      maxSockets,
      rejectUnauthorized: !c.insecureSkipTlsVerify,
      ...(c.ca === undefined || c.insecureSkipTlsVerify ? {} : { ca: c.ca }),
      ...(c.tlsServerName === undefined ? {} : { servername: c.tlsServerName }),
      ...(creds?.clientCert === undefined || creds.clientKey === undefined
        ? {}
        : { cert: creds.clientCert, key: creds.clientKey }),
    });
  }
}
