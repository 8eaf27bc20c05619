/**
 * The controller's optional web endpoint (`--ui-bind-address`, off by default): the read-only
 * view `kro ui` serves, for whoever asks with a Kubernetes bearer token. The controller's own
 * rights are used for one thing only — a TokenReview saying whose token it is; every object on the
 * page is read with the asker's token (user-sessions.ts), so the API server's RBAC decides what
 * a person sees. No token, or one the API server refuses: 401 and the sign-in page, nothing of
 * the cluster. The compiled graphs (for trees and pictures) are the ones this controller serves;
 * a picture is drawn only for an RGD the asker's own read just listed.
 */
import type { IncomingMessage } from "node:http";
import {
  escapeHtml,
  startUiServer,
  type GraphSource,
  type PlainReply,
  type SessionAnswer,
  type UiServer,
} from "../../inspect/index.js";
import type { KubeClient } from "../../kube/index.js";
import { parseBindAddress, type Logger } from "../../observability/index.js";
import type { ServedGraphs } from "../context/index.js";
import { bearerTokenOf, serviceAccountNamespace, TOKEN_COOKIE } from "./bearer-token.js";
import { MAX_COOKIE_TOKEN, readFormToken, sameOrigin, tokenCookie, unauthorized } from "./sign-in.js";
import { TokenReviews } from "./token-review.js";
import { UserSessions } from "./user-sessions.js";

export interface ControllerUiOptions {
  /** host:port or :port (port 0 picks a free one). */
  readonly address: string;
  /** The controller's client: TokenReviews, and the API server and CA the users' clients reach. */
  readonly client: KubeClient;
  readonly served: ServedGraphs;
  readonly logger: Logger;
  /** The controller's --rgd-selector: the page shows the RGDs this controller serves. */
  readonly rgdSelector?: string;
  /** Where member clusters are registered (the controller's --cluster-namespace). */
  readonly clusterNamespace?: string;
  /** Serve HTTPS (PEM key and certificate). */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
  readonly refreshMs?: number;
  readonly reviewTtlMs?: number;
  readonly userAgent?: string;
}

export interface ControllerUi {
  readonly url: string;
  readonly port: number;
  setTls(tls: { readonly key: string | Buffer; readonly cert: string | Buffer }): void;
  close(): Promise<void>;
}

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** The sign-in cookie's life; an expired or revoked token is refused before that anyway. */
const COOKIE_SECONDS = 12 * 3600;

/** The graph this controller serves for an RGD (the same object the asker listed: same uid), or why there is none. */
export function servedGraphSource(served: ServedGraphs): GraphSource {
  return (rgd) => {
    const entry = served.get(rgd.metadata?.name ?? "");
    if (entry === undefined || entry.rgdUid !== rgd.metadata?.uid)
      return Promise.reject(new Error("this controller does not serve it (yet): see its conditions"));
    return Promise.resolve(entry.graph);
  };
}

export async function startControllerUi(options: ControllerUiOptions): Promise<ControllerUi | undefined> {
  const bind = parseBindAddress(options.address);
  if (bind === undefined) return undefined;
  const { logger } = options;
  const refreshMs = options.refreshMs ?? 2000;
  const secure = options.tls !== undefined;
  const reviews = new TokenReviews(options.client, options.reviewTtlMs);
  const sessions = new UserSessions({
    client: options.client,
    graphs: servedGraphSource(options.served),
    refreshMs,
    ...(options.rgdSelector === undefined ? {} : { rgdSelector: options.rgdSelector }),
    ...(options.clusterNamespace === undefined ? {} : { clusterNamespace: options.clusterNamespace }),
    ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
  });

  async function sessionFor(request: IncomingMessage): Promise<SessionAnswer> {
    const token = bearerTokenOf(request.headers);
    if (token === undefined)
      return {
        ok: false,
        ...unauthorized(
          request.headers.authorization === undefined ? undefined : "the Authorization header holds no bearer token",
        ),
      };
    const answer = await reviews.review(token);
    if (answer.outcome === "unavailable") {
      logger.warn({ err: answer.reason }, "web view: token review failed");
      return { ok: false, status: 503, body: `<p class="error-message">${escapeHtml(answer.reason)}</p>` };
    }
    if (answer.outcome === "refused")
      return { ok: false, ...unauthorized(`the API server does not accept this token: ${answer.reason}`) };
    // The filter form sends an empty namespace for "all".
    const asked = new URL(request.url ?? "/", "http://kro-ui.invalid").searchParams.get("namespace") || undefined;
    if (asked !== undefined && !NAMESPACE.test(asked))
      return { ok: false, status: 400, body: "<p>namespace must be a namespace name</p>" };
    const fallback = serviceAccountNamespace(answer.user.username) ?? "default";
    return { ok: true, session: await sessions.sessionFor(token, answer.user, asked, fallback) };
  }

  async function extraRoute(request: IncomingMessage, url: URL): Promise<PlainReply | undefined> {
    if (url.pathname === "/sign-out") {
      return {
        status: 303,
        body: "",
        headers: {
          location: "./",
          "set-cookie": `${TOKEN_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? "; Secure" : ""}`,
        },
      };
    }
    if (url.pathname !== "/sign-in") return undefined;
    if (request.method !== "POST") return { status: 303, body: "", headers: { location: "./" } };
    if (!sameOrigin(request, secure)) return { status: 403, body: "<p>sign in from this server's own page</p>" };
    const token = await readFormToken(request);
    if (token === undefined || bearerTokenOf({ authorization: `Bearer ${token}` }) === undefined)
      return unauthorized("paste a bearer token");
    if (token.length > MAX_COOKIE_TOKEN)
      return unauthorized("this token is too long for a cookie: send it in the Authorization header instead");
    const answer = await reviews.review(token);
    if (answer.outcome !== "authenticated")
      return unauthorized(
        answer.outcome === "refused" ? `the API server does not accept this token: ${answer.reason}` : answer.reason,
      );
    logger.info({ user: answer.user.username }, "web view: signed in");
    return {
      status: 303,
      body: "",
      headers: { location: "./", "set-cookie": tokenCookie(token, secure, COOKIE_SECONDS) },
    };
  }

  const server: UiServer = await startUiServer({
    address: bind.host,
    port: bind.port,
    refreshMs,
    sessionFor,
    extraRoute,
    title: "the kro controller's web view",
    // Every request authenticates, and the cookie is bound to the host the person signed in on: no rebinding risk.
    checkHost: false,
    ...(options.tls === undefined ? {} : { tls: options.tls }),
  });
  logger.info({ url: server.url }, "web view serving");
  return {
    url: server.url,
    port: server.port,
    setTls: (tls) => {
      server.setTls(tls);
    },
    async close() {
      await server.close();
      sessions.close();
    },
  };
}
