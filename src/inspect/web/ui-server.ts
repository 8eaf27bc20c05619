/**
 * The HTTP side of the web view (`kro ui` and the controller's endpoint): a read-only server (GET
 * and HEAD only) for the pages (page-routes.ts), their fragments, script, stylesheet and the RGDs'
 * graph pictures.
 * Who asks decides what is read: every request is first given to `sessionFor`, which answers with
 * the asker's session or a refusal (the controller's 401) — nothing is served before it answers.
 * On a loopback address it answers only requests naming that address as Host, so a web page on
 * another site cannot read the cluster through it by DNS rebinding. With `tls` it serves HTTPS.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, type ServerOptions as HttpsOptions } from "node:https";
import type { AddressInfo } from "node:net";
import { fragmentUrl, PAGE_SCRIPT, PAGE_STYLE, pageShell, wrongHostPage } from "./page-assets.js";
import { renderPage } from "./page-routes.js";
import type { UiSession } from "./snapshot-session.js";
import { escapeHtml } from "./view-html.js";

/** The asker's session, or what to answer instead (nothing of the cluster). */
export type SessionAnswer =
  | { readonly ok: true; readonly session: UiSession }
  | {
      readonly ok: false;
      readonly status: number;
      readonly body: string;
      readonly headers?: Readonly<Record<string, string>>;
    };

/** An answer of the server's own, e.g. the controller's sign-in form (never cluster data). */
export interface PlainReply {
  readonly status: number;
  readonly body: string;
  readonly type?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface UiServerOptions {
  readonly address: string;
  readonly port: number;
  readonly refreshMs: number;
  readonly sessionFor: (request: IncomingMessage) => Promise<SessionAnswer>;
  /** Serve HTTPS with this key and certificate (the controller's `--ui-tls-*` files). */
  readonly tls?: Pick<HttpsOptions, "key" | "cert">;
  /** A short name for messages ("kro ui", "the kro controller"). */
  readonly title?: string;
  /** Answer for Host only on a loopback address (DNS rebinding; default true). Off where every request authenticates. */
  readonly checkHost?: boolean;
  /** Routes of the embedding server (the controller's sign-in): asked first; undefined leaves the request to the view. */
  readonly extraRoute?: (request: IncomingMessage, url: URL) => Promise<PlainReply | undefined>;
}

export interface UiServer {
  readonly url: string;
  readonly port: number;
  /** Replace the TLS key and certificate (a rotated Secret) without dropping the listener. */
  setTls(tls: Pick<HttpsOptions, "key" | "cert">): void;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
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
  const title = options.title ?? "kro ui";
  async function route(request: IncomingMessage): Promise<Reply> {
    if (listening.hosts !== undefined && !listening.hosts.has(request.headers.host ?? ""))
      return { status: 421, type: HTML, body: wrongHostPage(request.headers.host ?? "") };
    const extra = await options.extraRoute?.(request, new URL(request.url ?? "/", "http://kro-ui.invalid"));
    if (extra !== undefined) return { type: HTML, ...extra };
    if (request.method !== "GET" && request.method !== "HEAD")
      return { status: 405, type: TEXT, body: `${title} is read-only\n`, headers: { allow: "GET, HEAD" } };
    const url = new URL(request.url ?? "/", "http://kro-ui.invalid");
    // The script and stylesheet hold nothing of the cluster; everything else waits for the asker's session.
    if (url.pathname === "/app.js") return { status: 200, type: "text/javascript; charset=utf-8", body: PAGE_SCRIPT };
    if (url.pathname === "/app.css") return { status: 200, type: "text/css; charset=utf-8", body: PAGE_STYLE };
    const answer = await options.sessionFor(request);
    if (!answer.ok)
      return {
        status: answer.status,
        type: HTML,
        body: answer.body,
        ...(answer.headers === undefined ? {} : { headers: answer.headers }),
      };
    return pageReply(answer.session, url);
  }

  async function pageReply(session: UiSession, url: URL): Promise<Reply> {
    if (url.pathname === "/graph.svg") {
      const param = (name: string): string => url.searchParams.get(name) ?? "";
      const svg = await session.picture(param("rgd"), param("generation"), param("colors"));
      if (svg === undefined)
        return {
          status: 404,
          type: TEXT,
          body: "no picture for that RGD (not shown to you, or it has no graph here)\n",
        };
      return { status: 200, type: "image/svg+xml", body: svg, headers: { "cache-control": "private, max-age=3600" } };
    }
    const page = await renderPage(session, url, Date.now());
    if (page === undefined) return { status: 404, type: TEXT, body: "not found\n" };
    // `/view` and `?fragment` answer the part the page's script swaps in; anything else the whole page.
    if (url.pathname === "/view" || url.searchParams.has("fragment"))
      return { status: 200, type: HTML, body: page.fragment };
    return { status: 200, type: HTML, body: pageShell(page, options.refreshMs, fragmentUrl(url.searchParams)) };
  }

  function send(request: IncomingMessage, response: ServerResponse, reply: Reply): void {
    response.writeHead(reply.status, {
      ...SECURITY_HEADERS,
      "content-type": reply.type,
      "cache-control": "no-store",
      ...reply.headers,
    });
    response.end(request.method === "HEAD" ? undefined : reply.body);
  }

  /** Set once the port is known. */
  const listening: { hosts?: Set<string> } = {};
  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    route(request).then(
      (reply) => {
        send(request, response, reply);
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        send(request, response, {
          status: 500,
          type: HTML,
          body: `<p class="error-message">${escapeHtml(title)} could not read the cluster: ${escapeHtml(message)}</p>`,
        });
      },
    );
  };
  const secure = options.tls === undefined ? undefined : createHttpsServer({ ...options.tls }, handle);
  const server: Server = secure ?? createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.address, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const hostPart = bound.address.includes(":") ? `[${bound.address}]` : bound.address;
  const hosts = options.checkHost === false ? undefined : allowedHosts(options.address, bound.port);
  if (hosts !== undefined) listening.hosts = hosts.add(`${hostPart}:${String(bound.port)}`);
  return {
    url: `${secure === undefined ? "http" : "https"}://${hostPart}:${String(bound.port)}/`,
    port: bound.port,
    setTls(tls) {
      if (secure === undefined) throw new Error(`${title} was started without TLS`);
      secure.setSecureContext({ ...tls });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
