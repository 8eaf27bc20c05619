/**
 * A scriptable fake API server on node:http for unit tests of the kube client: it serves legacy
 * discovery for core/v1 ConfigMaps (and a cluster-scoped Namespace), and hands list, watch and
 * any other request to handlers the test sets. Every request is recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
  readonly at: number;
}

export type Handler = (req: RecordedRequest, res: ServerResponse, n: number) => void;

export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  onList: Handler = (_req, res) => {
    json(res, 200, { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "1" }, items: [] });
  };
  onWatch: Handler = (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
  };
  onOther: Handler = (_req, res) => {
    json(res, 404, {
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "NotFound",
      code: 404,
      message: "not found",
    });
  };
  /** More core/v1 resources to announce (a CRD appearing, say). */
  readonly extraResources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[] = [];
  /** Set to serve aggregated discovery instead of legacy. */
  aggregated = false;
  private readonly open = new Set<ServerResponse>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeApiServer> {
    const server = createServer();
    const fake = new FakeApiServer(server);
    server.on("request", (req, res) => {
      fake.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  lists(): RecordedRequest[] {
    return this.requests.filter(
      (r) => r.method === "GET" && r.path === "/api/v1/configmaps" && r.query.get("watch") === null,
    );
  }

  watches(): RecordedRequest[] {
    return this.requests.filter((r) => r.query.get("watch") === "1");
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://x");
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      this.requests.push(recorded);
      this.open.add(res);
      res.on("close", () => this.open.delete(res));
      if (this.discovery(recorded, res)) return;
      if (recorded.method === "GET" && recorded.path === "/api/v1/configmaps") {
        if (recorded.query.get("watch") === "1") this.onWatch(recorded, res, this.watches().length);
        else this.onList(recorded, res, this.lists().length);
        return;
      }
      this.onOther(recorded, res, this.requests.length);
    });
  }

  private discovery(req: RecordedRequest, res: ServerResponse): boolean {
    const resources = [
      {
        name: "configmaps",
        kind: "ConfigMap",
        namespaced: true,
        verbs: ["get", "list", "watch", "create", "patch", "delete"],
      },
      { name: "namespaces", kind: "Namespace", namespaced: false, verbs: ["get", "list"] },
      { name: "namespaces/status", kind: "Namespace", namespaced: false, verbs: ["get", "patch"] },
      ...this.extraResources,
    ];
    if (req.path === "/api" && this.aggregated) {
      json(res, 200, {
        kind: "APIGroupDiscoveryList",
        apiVersion: "apidiscovery.k8s.io/v2",
        items: [
          {
            metadata: {},
            versions: [
              {
                version: "v1",
                resources: resources
                  .filter((r) => !r.name.includes("/"))
                  .map((r) => ({
                    resource: r.name,
                    responseKind: { group: "", version: "v1", kind: r.kind },
                    scope: r.namespaced ? "Namespaced" : "Cluster",
                    verbs: r.verbs,
                    ...(r.name === "namespaces" ? { subresources: [{ subresource: "status" }] } : {}),
                  })),
              },
            ],
          },
        ],
      });
    } else if (req.path === "/apis" && this.aggregated) {
      json(res, 200, { kind: "APIGroupDiscoveryList", apiVersion: "apidiscovery.k8s.io/v2", items: [] });
    } else if (req.path === "/api") {
      json(res, 200, { kind: "APIVersions", versions: ["v1"] });
    } else if (req.path === "/apis") {
      json(res, 200, { kind: "APIGroupList", groups: [] });
    } else if (req.path === "/api/v1") {
      json(res, 200, { kind: "APIResourceList", groupVersion: "v1", resources });
    } else {
      return false;
    }
    return true;
  }
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export function configMap(
  name: string,
  resourceVersion: string,
  data: Record<string, string> = {},
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "ns", resourceVersion, uid: `uid-${name}` },
    data,
  };
}

/** Writes one watch event line on an open watch response. */
export function sendEvent(res: ServerResponse, type: string, object: unknown): void {
  if (!res.headersSent) res.writeHead(200, { "content-type": "application/json" });
  res.write(`${JSON.stringify({ type, object })}\n`);
}
