/**
 * The HTTP side of `kro ui`: a read-only server (GET and HEAD only) for the page, its fragment,
 * script, stylesheet and the RGDs' graph pictures. One snapshot of the cluster is shared by every
 * request within half a refresh interval, so several open tabs do not multiply the reads. On a
 * loopback address it answers only requests naming that address as Host, so a web page on another
 * site cannot read the cluster through it by DNS rebinding.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { graphPicture } from "../../graph/index.js";
import { renderSvg } from "../render-svg.js";
import type { SnapshotReader } from "./cluster-snapshot.js";
import { PAGE_SCRIPT, PAGE_STYLE, pageShell, wrongHostPage } from "./page-assets.js";
import { escapeHtml, renderView } from "./view-html.js";
import { uiViewOf, type UiView } from "./view-model.js";

export interface UiServerOptions {
  readonly address: string;
  readonly port: number;
  readonly refreshMs: number;
  readonly reader: SnapshotReader;
}

export interface UiServer {
  readonly url: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
} as const;

interface Reply {
  readonly status: number;
  readonly type: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

const HTML = "text/html; charset=utf-8";
const TEXT = "text/plain; charset=utf-8";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** The Host values a loopback server answers to: its own address (and localhost) with its port. */
export function allowedHosts(address: string, port: number): Set<string> | undefined {
  if (!LOOPBACK.test(address)) return undefined; // bound for others to reach: any name may lead here
  const hostPart = address.includes(":") ? `[${address}]` : address;
  return new Set([`${hostPart}:${String(port)}`, `localhost:${String(port)}`]);
}

export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  let latest: { at: number; view: UiView } | undefined;
  let inFlight: Promise<UiView> | undefined;
  const pictures = new Map<string, string>();

  async function currentView(): Promise<UiView> {
    if (latest !== undefined && Date.now() - latest.at < options.refreshMs / 2) return latest.view;
    inFlight ??= (async () => {
      try {
        const view = uiViewOf(await options.reader.read(), Date.now());
        latest = { at: Date.now(), view };
        return view;
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  }

  async function picture(rgd: string, generation: string): Promise<string | undefined> {
    const key = `${rgd}@${generation}`;
    const known = pictures.get(key);
    if (known !== undefined) return known;
    const graph = options.reader.graph(rgd, generation);
    if (graph === undefined) return undefined;
    const svg = await renderSvg(graphPicture(graph, "dot"));
    if (pictures.size > 256) pictures.clear();
    pictures.set(key, svg);
    return svg;
  }

  async function route(request: IncomingMessage): Promise<Reply> {
    if (listening.hosts !== undefined && !listening.hosts.has(request.headers.host ?? "")) return { status: 421, type: HTML, body: wrongHostPage(request.headers.host ?? "") };
    if (request.method !== "GET" && request.method !== "HEAD") return { status: 405, type: TEXT, body: "kro ui is read-only\n", headers: { allow: "GET, HEAD" } };
    const url = new URL(request.url ?? "/", "http://kro-ui.invalid");
    switch (url.pathname) {
      case "/":
        return { status: 200, type: HTML, body: pageShell(renderView(await currentView()), options.refreshMs) };
      case "/view":
        return { status: 200, type: HTML, body: renderView(await currentView()) };
      case "/app.js":
        return { status: 200, type: "text/javascript; charset=utf-8", body: PAGE_SCRIPT };
      case "/app.css":
        return { status: 200, type: "text/css; charset=utf-8", body: PAGE_STYLE };
      case "/graph.svg": {
        const svg = await picture(url.searchParams.get("rgd") ?? "", url.searchParams.get("generation") ?? "");
        if (svg === undefined) return { status: 404, type: TEXT, body: "no picture for that RGD (not read yet, or it does not compile here)\n" };
        return { status: 200, type: "image/svg+xml", body: svg, headers: { "cache-control": "private, max-age=3600" } };
      }
      default:
        return { status: 404, type: TEXT, body: "not found\n" };
    }
  }

  function send(request: IncomingMessage, response: ServerResponse, reply: Reply): void {
    response.writeHead(reply.status, { ...SECURITY_HEADERS, "content-type": reply.type, "cache-control": "no-store", ...reply.headers });
    response.end(request.method === "HEAD" ? undefined : reply.body);
  }

  /** Set once the port is known. */
  const listening: { hosts?: Set<string> } = {};
  const server = createServer((request, response) => {
    route(request).then((reply) => { send(request, response, reply); }, (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      send(request, response, { status: 500, type: HTML, body: `<p class="error-message">kro ui could not read the cluster: ${escapeHtml(message)}</p>` });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.address, () => { server.off("error", reject); resolve(); });
  });
  const bound = server.address() as AddressInfo;
  const hostPart = bound.address.includes(":") ? `[${bound.address}]` : bound.address;
  const hosts = allowedHosts(options.address, bound.port);
  if (hosts !== undefined) listening.hosts = hosts.add(`${hostPart}:${String(bound.port)}`);
  return {
    url: `http://${hostPart}:${String(bound.port)}/`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => { resolve(); });
    }),
  };
}
