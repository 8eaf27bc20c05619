/**
 * The HTTPS endpoint the API server calls to convert objects: POST /convert with a
 * ConversionReview (and any admission webhook path the controller adds, with the same bounds). The TLS context is swapped in place when the certificate rotates, so
 * connections in flight finish and new ones get the new certificate.
 *
 * HTTP/2 first (HTTP/1.1 still answered): the API server's client speaks it when offered, and
 * HTTP/2 is what makes a stop lossless. A stopping replica first stops accepting connections
 * (a Service or load balancer sends new ones to another replica), then sends GOAWAY on each
 * session: the requests it already took are answered, and the client retries any it sent after
 * on a new connection. HTTP/1.1 has no such signal — closing an idle keep-alive connection races
 * a request the client is writing into it, and the API server does not retry a POST — so an
 * HTTP/1.1 connection is closed only once it carries no request, with `Connection: close`
 * on answers given while stopping.
 */
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse, type Http2Session } from "node:http2";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Logger } from "../../observability/index.js";
import type { ConversionReview } from "./conversion-review.js";
import type { ServingCertificate } from "./serving-certificate.js";

export const CONVERT_PATH = "/convert";
/** The API server sends at most a list's worth of objects; a body beyond this is refused. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;
/**
 * Bytes all requests in flight may hold together. The port answers anyone who reaches it (the API
 * server presents no client certificate by default), so no number of parallel large bodies may
 * grow the heap past this: a request that would is refused with 429 and retried by its client.
 */
const MAX_INFLIGHT_BYTES = 96 * 1024 * 1024;
/**
 * Objects nested deeper are refused (400) before they are parsed: conversion walks objects
 * recursively, and a stack overflow must not be the answer. Far deeper than any real object.
 */
export const MAX_NESTING_DEPTH = 1_000;
/** How long a stop waits for requests in flight before it cuts what is left. */
const DEFAULT_DRAIN_MS = 10_000;

export interface RunningWebhookServer {
  readonly port: number;
  useCertificate(cert: ServingCertificate): void;
  /** Stops accepting, answers what was taken, then closes (at most `drainMs`, then cuts). */
  close(drainMs?: number): Promise<void>;
}

type Request = Http2ServerRequest | IncomingMessage;
type Response = Http2ServerResponse | ServerResponse;

export async function startWebhookServer(options: {
  host: string;
  port: number;
  cert: ServingCertificate;
  /** Answers one ConversionReview (conversion-review.ts, bound to the APIs it converts); undefined: not a review (400). */
  convert: (body: unknown) => ConversionReview | undefined | Promise<ConversionReview | undefined>;
  /** Other POST paths this server answers (an admission webhook): the body in, the answer (or its promise) out (undefined: 400). */
  handlers?: ReadonlyMap<string, (body: unknown) => unknown>;
  logger: Logger;
  /** Bytes all requests in flight may hold together (default MAX_INFLIGHT_BYTES). */
  maxInflightBytes?: number;
}): Promise<RunningWebhookServer> {
  const maxInflightBytes = options.maxInflightBytes ?? MAX_INFLIGHT_BYTES;
  const sessions = new Set<Http2Session>();
  const sockets = new Set<Socket>();
  /** HTTP/1.1 connections with a request being answered: closed once it is. */
  const busy = new Map<Socket, number>();
  let draining = false;
  let inflightBytes = 0;
  const settled: (() => void)[] = [];
  const checkSettled = () => {
    if (draining && sessions.size === 0 && sockets.size === 0) for (const done of settled.splice(0)) done();
  };

  const handle = (req: Request, res: Response) => {
    const http1 = req.httpVersionMajor === 1 ? req.socket : undefined;
    if (http1 !== undefined) {
      busy.set(http1, (busy.get(http1) ?? 0) + 1);
      res.on("close", () => {
        const left = (busy.get(http1) ?? 1) - 1;
        if (left > 0) {
          busy.set(http1, left);
          return;
        }
        busy.delete(http1);
        if (draining) http1.end();
      });
    }
    const reply = (status: number, body: unknown) => {
      if (http1 !== undefined && draining) res.setHeader("connection", "close");
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.url === "/healthz") {
      reply(200, { ok: true });
      return;
    }
    const path = (req.url ?? "").split("?")[0] ?? "";
    const handler = path === CONVERT_PATH ? undefined : options.handlers?.get(path);
    if (req.method !== "POST" || (path !== CONVERT_PATH && handler === undefined)) {
      reply(404, { message: `POST ${[CONVERT_PATH, ...(options.handlers?.keys() ?? [])].join(" or ")} only` });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const release = () => {
      inflightBytes -= size;
      size = 0;
    };
    res.on("close", release);
    req.on("data", (chunk: Buffer) => {
      if (res.headersSent) return;
      size += chunk.length;
      inflightBytes += chunk.length;
      const refusal =
        size > MAX_BODY_BYTES
          ? ([413, "ConversionReview too large"] as const)
          : inflightBytes > maxInflightBytes
            ? ([429, "too many conversion bytes in flight; retry"] as const)
            : undefined;
      if (refusal !== undefined) {
        release();
        chunks.length = 0;
        reply(refusal[0], { message: refusal[1] });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (res.headersSent) return;
      const text = Buffer.concat(chunks).toString("utf8");
      chunks.length = 0;
      if (nestingDepth(text) > MAX_NESTING_DEPTH) {
        reply(400, { message: `the object is nested deeper than ${MAX_NESTING_DEPTH} levels` });
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        reply(400, { message: "body is not JSON" });
        return;
      }
      if (handler !== undefined) {
        // A handler may answer later (the webhook's thread asks the controller's): thrown or rejected, a 500.
        void Promise.resolve(body)
          .then(handler)
          .then(
            (answer) => {
              if (answer === undefined) reply(400, { message: `body is not a review ${path} answers` });
              else reply(200, answer);
            },
            (e: unknown) => {
              reply(500, { message: e instanceof Error ? e.message : String(e) });
            },
          );
        return;
      }
      void Promise.resolve(body)
        .then(options.convert)
        .then(
          (review) => {
            if (review === undefined) {
              reply(400, { message: "body is not a ConversionReview request" });
              return;
            }
            if (review.response.result.status === "Failure")
              options.logger.warn({ message: review.response.result.message }, "conversion refused");
            reply(200, review);
          },
          (e: unknown) => {
            options.logger.error({ err: e instanceof Error ? e.message : String(e) }, "conversion webhook failed");
            reply(500, { message: e instanceof Error ? e.message : String(e) });
          },
        );
    });
  };

  const server = createSecureServer({ key: options.cert.keyPem, cert: options.cert.certPem, allowHTTP1: true }, handle);
  server.on("secureConnection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      busy.delete(socket);
      checkSettled();
    });
  });
  server.on("session", (session: Http2Session) => {
    sessions.add(session);
    session.on("close", () => {
      sessions.delete(session);
      checkSettled();
    });
    session.on("error", () => undefined);
    // Accepted just before the stop, its handshake done just after: told to go elsewhere at once.
    if (draining) session.close();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });

  return {
    port: (server.address() as AddressInfo).port,
    useCertificate(cert) {
      server.setSecureContext({ key: cert.keyPem, cert: cert.certPem });
    },
    async close(drainMs = DEFAULT_DRAIN_MS) {
      if (draining) return;
      draining = true;
      // New connections are refused from here on: whatever is in front of the replicas picks another.
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      // GOAWAY: streams already opened are answered, the client sends later ones elsewhere.
      for (const session of sessions) session.close();
      for (const socket of sockets) if (!isHttp2(socket) && !busy.has(socket)) socket.end();
      const quiet = new Promise<void>((resolve) => {
        settled.push(resolve);
        checkSettled();
      });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => {
          resolve("late");
        }, drainMs);
      });
      if ((await Promise.race([quiet, late])) === "late") {
        options.logger.warn(
          { sessions: sessions.size, connections: sockets.size },
          "conversion webhook: requests still open at the end of the drain; closing them",
        );
        for (const session of sessions) session.destroy();
        for (const socket of sockets) socket.destroy();
      }
      clearTimeout(timer);
      await closed;
    },
  };
}

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

function isHttp2(socket: Socket): boolean {
  return (socket as Socket & { alpnProtocol?: string | false }).alpnProtocol === "h2";
}
