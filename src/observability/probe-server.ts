/**
 * Serves /metrics (Prometheus text) and /healthz, /readyz on the addresses the controller's
 * flags name ("host:port" or ":port"; port 0 picks a free one, "0" disables).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface ProbeServerOptions {
  readonly address: string;
  readonly registry?: Registry;
  /** Readiness: e.g. informers synced and, with leader election, a running controller. */
  readonly ready?: () => boolean;
  /** Liveness: e.g. reconcile workers and informers alive; problems are listed in the answer. */
  readonly healthy?: () => HealthReport;
}

export interface HealthReport {
  readonly ok: boolean;
  readonly problems: readonly string[];
}

export interface RunningServer {
  readonly port: number;
  close(): Promise<void>;
}

export function parseBindAddress(address: string): { host: string; port: number } | undefined {
  if (address === "0") return undefined;
  const match = /^(.*):(\d+)$/.exec(address);
  if (match === null) throw new Error(`invalid bind address "${address}": expected host:port, :port or 0`);
  return { host: match[1] === "" ? "0.0.0.0" : (match[1] ?? ""), port: Number(match[2]) };
}

export async function startProbeServer(options: ProbeServerOptions): Promise<RunningServer | undefined> {
  const bind = parseBindAddress(options.address);
  if (bind === undefined) return undefined;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/metrics" && options.registry !== undefined) {
      options.registry.metrics().then(
        (text) => {
          res.writeHead(200, { "content-type": options.registry?.contentType ?? "text/plain" });
          res.end(text);
        },
        (error: unknown) => {
          res.writeHead(500);
          res.end(String(error));
        },
      );
      return;
    }
    if (path === "/healthz") {
      const health = options.healthy?.() ?? { ok: true, problems: [] };
      res.writeHead(health.ok ? 200 : 503, { "content-type": "text/plain" });
      res.end(health.ok ? "ok" : `unhealthy:\n${health.problems.join("\n")}\n`);
      return;
    }
    if (path === "/readyz") {
      const ready = options.ready?.() ?? true;
      res.writeHead(ready ? 200 : 503, { "content-type": "text/plain" });
      res.end(ready ? "ok" : "not ready");
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(bind.port, bind.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
