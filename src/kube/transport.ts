/**
 * HTTP(S) to one API server: auth headers, the shared rate limiter, retries with jittered backoff
 * (429, 5xx, connection failures; Retry-After honoured), one credential refresh on 401. Every
 * request has one deadline covering all of its waiting — rate limiter, socket pool, response and
 * retries — and watches use a pool of their own, so a request never queues behind a watch.
 * Bodies stay strings; parsing is the caller's business.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import { Backoff, parseRetryAfter, sleep, type BackoffOptions } from "./backoff.js";
import type { ConnectionConfig } from "./connection-config.js";
import { ConnectionPools, type PoolName } from "./connection-pools.js";
import type { CredentialProvider, RequestCredentials } from "./credentials.js";
import { ApiError, FencedError, TransportError } from "./errors.js";
import type { TokenBucket } from "./rate-limiter.js";
import type { KubeLogger, KubeMetrics } from "./types.js";
import type { WriteFence } from "./write-fence.js";

export interface HttpRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path with query string. */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly accept?: string;
  /** Retry 429/5xx/connection failures (default true). */
  readonly retry?: boolean;
  readonly signal?: AbortSignal | undefined;
  /** Overrides the transport's deadline for this request (for a watch: until the headers arrive). */
  readonly timeoutMs?: number | undefined;
  /** A second fence for this write only, beside the transport's (a shard's tenure; see KubeClient.withFence). */
  readonly fence?: WriteFence | undefined;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface TransportOptions {
  readonly maxRetries?: number;
  readonly backoff?: BackoffOptions;
  /** Deadline of a request, all waiting included (default 60 s); for a watch, until its headers. */
  readonly timeoutMs?: number;
  /** Sockets for ordinary requests (default 64); watches have their own, unbounded pool. */
  readonly maxRequestSockets?: number;
  /** When closed, writes are refused and in-flight writes aborted (leader election). */
  readonly fence?: WriteFence;
  /** Sent as User-Agent (default "kro-ts"): names the replica in the API server's audit log. */
  readonly userAgent?: string;
  readonly logger: KubeLogger;
  readonly metrics: KubeMetrics;
}

const RETRY_STATUS = new Set([429, 500, 502, 503, 504]);
/** Errors where the request surely never reached the server: safe to retry any verb. */
const NOT_SENT = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ENOTFOUND"]);
const CONNECTION_LOST = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED", "UND_ERR_SOCKET"]);
const MAX_RETRY_AFTER_MS = 60_000;
/** After the server came back (for RECOVERY_WINDOW_MS), a retry waits at most this long: see wakeRetriesWhen. */
const RECOVERY_RETRY_MS = 250;
const RECOVERY_WINDOW_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 60_000;

/** Why a request's signal fired: its deadline, the caller, or the write fence. */
interface RequestScope {
  readonly signal: AbortSignal;
  readonly deadline: AbortSignal;
  readonly timeoutMs: number;
  dispose(): void;
}

export class Transport {
  private readonly url: URL;
  private readonly isHttps: boolean;
  private readonly pools: ConnectionPools;
  private serverBack: ((signal: AbortSignal) => Promise<void>) | undefined;
  private recoveredAt: (() => number | undefined) | undefined;

  constructor(
    private readonly config: ConnectionConfig,
    private readonly credentials: CredentialProvider,
    private readonly limiter: TokenBucket,
    private readonly options: TransportOptions,
  ) {
    this.url = new URL(config.server);
    this.isHttps = this.url.protocol === "https:";
    this.pools = new ConnectionPools(config, options.maxRequestSockets);
  }

  get server(): string {
    return this.config.server;
  }

  /**
   * Lets a retry that waits because the server was unreachable or failing wake as soon as the
   * client's shared /readyz probe sees it back (KubeClient sets it): after an API-server restart a
   * reconcile's request must not sleep out the 3 s step its backoff grew to while the server was away.
   * `recoveredAt`: when the server last came back; for a while after it, the 503s and 429s a
   * kube-apiserver still answers while it settles are retried on a short step (RECOVERY_RETRY_MS).
   */
  wakeRetriesWhen(serverBack: (signal: AbortSignal) => Promise<void>, recoveredAt: () => number | undefined): void {
    this.serverBack = serverBack;
    this.recoveredAt = recoveredAt;
  }

  /** Open sockets and queued requests per pool. */
  poolStats(): ReturnType<ConnectionPools["stats"]> {
    return this.pools.stats();
  }

  close(): void {
    this.pools.destroy();
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const maxRetries = req.retry === false ? 0 : (this.options.maxRetries ?? 5);
    const write = req.method !== "GET";
    const scope = this.scope(req, write);
    try {
      return await this.attempts(req, scope, maxRetries);
    } finally {
      scope.dispose();
    }
  }

  private async attempts(req: HttpRequest, scope: RequestScope, maxRetries: number): Promise<HttpResponse> {
    const backoff = new Backoff(this.options.backoff);
    const write = req.method !== "GET";
    let refreshedAuth = false;
    for (let attempt = 0; ; attempt++) {
      let response: HttpResponse;
      const started = performance.now();
      try {
        const creds = await abortable(this.credentials.get(), scope.signal);
        await this.waitForToken(scope.signal);
        if (write) this.checkFences(req);
        const res = await this.send(
          req,
          creds,
          "request",
          scope.signal,
          undefined,
          write && this.fenced(req)
            ? () => {
                this.checkFences(req);
              }
            : undefined,
        );
        response = { status: res.statusCode ?? 0, headers: res.headers, body: await readBody(res) };
        if (response.status === 401 && !refreshedAuth && this.credentials.invalidate(creds)) {
          this.record(req, response.status, started);
          refreshedAuth = true;
          continue;
        }
      } catch (error) {
        this.record(req, 0, started);
        const stop = this.whyStopped(req, scope, error);
        if (stop !== undefined) throw stop;
        const code = (error as NodeJS.ErrnoException).code ?? "";
        const retryable =
          NOT_SENT.has(code) ||
          ((CONNECTION_LOST.has(code) || (error as Error).message.includes("socket hang up")) && req.method !== "POST");
        if (!retryable || attempt >= maxRetries) throw new TransportError(req.method, req.path, { cause: error });
        await this.pause(req, scope, attempt, backoff.next(), code || (error as Error).message, true);
        continue;
      }
      this.record(req, response.status, started);
      if (response.status >= 200 && response.status < 300) return response;
      if (RETRY_STATUS.has(response.status) && attempt < maxRetries) {
        const retryAfter = parseRetryAfter(response.headers["retry-after"]);
        const delay = retryAfter === undefined ? backoff.next() : Math.min(retryAfter, MAX_RETRY_AFTER_MS);
        await this.pause(
          req,
          scope,
          attempt,
          this.recovering() ? Math.min(delay, RECOVERY_RETRY_MS) : delay,
          `HTTP ${response.status}`,
          false,
        );
        continue;
      }
      throw new ApiError({ status: response.status, verb: req.method, path: req.path, body: response.body });
    }
  }

  /**
   * Opens a streaming GET (watch) on the watch pool. The deadline covers getting the response
   * headers only; the stream itself lives until the caller ends it. Non-2xx answers become
   * ApiError; no retries here.
   */
  async stream(req: HttpRequest): Promise<IncomingMessage> {
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const opening = new AbortController();
    const timer = setTimeout(() => {
      opening.abort(deadlineError(timeoutMs));
    }, timeoutMs);
    const signal = req.signal === undefined ? opening.signal : AbortSignal.any([opening.signal, req.signal]);
    try {
      let creds = await abortable(this.credentials.get(), signal);
      for (let authRetry = 0; ; authRetry++) {
        await this.waitForToken(signal);
        const started = performance.now();
        let res: IncomingMessage;
        try {
          res = await this.send(req, creds, "watch", req.signal, opening.signal);
        } catch (error) {
          this.record(req, 0, started);
          if (req.signal?.aborted === true) throw error;
          throw new TransportError(req.method, req.path, {
            cause: opening.signal.aborted ? opening.signal.reason : error,
          });
        }
        this.record(req, res.statusCode ?? 0, started);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return res;
        const body = await readBody(res).catch(() => "");
        if (status === 401 && authRetry === 0 && this.credentials.invalidate(creds)) {
          creds = await abortable(this.credentials.get(), signal);
          continue;
        }
        throw new ApiError({ status, verb: "WATCH", path: req.path, body });
      }
    } catch (error) {
      if (opening.signal.aborted && !(error instanceof TransportError) && req.signal?.aborted !== true)
        throw new TransportError(req.method, req.path, { cause: opening.signal.reason });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private scope(req: HttpRequest, write: boolean): RequestScope {
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      deadline.abort(deadlineError(timeoutMs));
    }, timeoutMs);
    timer.unref();
    const signals = [deadline.signal];
    if (req.signal !== undefined) signals.push(req.signal);
    if (write && this.options.fence !== undefined) signals.push(this.options.fence.signal);
    if (write && req.fence !== undefined) signals.push(req.fence.signal);
    return {
      signal: signals.length === 1 ? deadline.signal : AbortSignal.any(signals),
      deadline: deadline.signal,
      timeoutMs,
      dispose: () => {
        clearTimeout(timer);
      },
    };
  }

  /** An error that ends the request without retry: fenced, past its deadline, or cancelled. */
  private whyStopped(req: HttpRequest, scope: RequestScope, error: unknown): Error | undefined {
    if (error instanceof FencedError) return error;
    if (
      (this.options.fence?.closed === true || req.fence?.closed === true) &&
      req.method !== "GET" &&
      scope.signal.aborted
    )
      return new FencedError(req.method, req.path, "lost while in flight");
    if (req.signal?.aborted === true) return error instanceof Error ? error : new Error(String(error));
    if (scope.deadline.aborted) return new TransportError(req.method, req.path, { cause: scope.deadline.reason });
    return undefined;
  }

  private fenced(req: HttpRequest): boolean {
    return this.options.fence !== undefined || req.fence !== undefined;
  }

  private checkFences(req: HttpRequest): void {
    this.options.fence?.check(req.method, req.path);
    req.fence?.check(req.method, req.path);
  }

  private async waitForToken(signal: AbortSignal): Promise<void> {
    const waited = await abortable(this.limiter.acquire(), signal);
    if (waited > 1) this.options.metrics.onRateLimitWait?.(waited);
  }

  private recovering(): boolean {
    const at = this.recoveredAt?.();
    return at !== undefined && Date.now() - at < RECOVERY_WINDOW_MS;
  }

  /** Sleeps before a retry; `wakeable` (the connection failed): may end early when the server is seen back; a server that answered 5xx or 429 is there and gets its backoff. */
  private async pause(
    req: HttpRequest,
    scope: RequestScope,
    attempt: number,
    delayMs: number,
    reason: string,
    wakeable: boolean,
  ): Promise<void> {
    this.options.metrics.onRetry?.({ verb: req.method, path: req.path, attempt: attempt + 1, delayMs, reason });
    this.options.logger.debug?.(
      { verb: req.method, path: req.path, attempt: attempt + 1, delayMs, reason },
      "retrying kube API request",
    );
    const done = new AbortController();
    const signal = AbortSignal.any([scope.signal, done.signal]);
    try {
      const back = wakeable && this.serverBack !== undefined ? [this.serverBack(signal)] : [];
      await Promise.race([sleep(delayMs, signal), ...back]);
    } catch (error) {
      throw this.whyStopped(req, scope, error) ?? error;
    } finally {
      done.abort();
    }
  }

  private record(req: HttpRequest, status: number, started: number): void {
    this.options.metrics.onRequest?.({
      verb: req.method,
      path: req.path.split("?")[0] ?? req.path,
      status,
      durationMs: performance.now() - started,
    });
  }

  /**
   * One HTTP exchange up to the response headers. `signal` aborts the whole exchange (body
   * included); `openSignal` (watches) aborts only until the headers are in. `beforeWrite` (the
   * write fences) runs again once the request holds a connected socket, right before its bytes
   * are handed to it: a write may wait for a socket (pool full, TLS handshake) for a long time —
   * across a SIGSTOP, say — and must not go out if the fence closed meanwhile.
   */
  private send(
    req: HttpRequest,
    creds: RequestCredentials,
    pool: PoolName,
    signal: AbortSignal | undefined,
    openSignal?: AbortSignal,
    beforeWrite?: () => void,
  ): Promise<IncomingMessage> {
    const headers: Record<string, string> = {
      accept: req.accept ?? "application/json",
      "user-agent": this.options.userAgent ?? "kro-ts",
    };
    if (creds.authorization !== undefined) headers.authorization = creds.authorization;
    if (req.body !== undefined) {
      headers["content-type"] = req.contentType ?? "application/json";
      headers["content-length"] = String(Buffer.byteLength(req.body));
    }
    const basePath = this.url.pathname.replace(/\/+$/, "");
    const options: http.RequestOptions = {
      method: req.method,
      hostname: this.url.hostname.replace(/^\[|\]$/g, ""),
      port: this.url.port === "" ? (this.isHttps ? 443 : 80) : Number(this.url.port),
      path: `${basePath}${req.path}`,
      headers,
      agent: this.pools.agent(pool, creds),
      ...(signal === undefined ? {} : { signal }),
    };
    return new Promise((resolve, reject) => {
      const queuedAt = performance.now();
      const cleanup = (): void => {
        openSignal?.removeEventListener("abort", onOpenAbort);
        signal?.removeEventListener("abort", onAbort);
      };
      const r = (this.isHttps ? https.request : http.request)(options, (res) => {
        cleanup();
        resolve(res);
      });
      // A request still queued for a socket reports its destruction only once it gets one:
      // settle at once ourselves, so a deadline is kept even while the pool is full.
      const onAbort = (): void => {
        cleanup();
        reject(signal?.reason as Error);
      };
      const onOpenAbort = (): void => {
        cleanup();
        r.destroy(openSignal?.reason as Error);
        reject(openSignal?.reason as Error);
      };
      openSignal?.addEventListener("abort", onOpenAbort, { once: true });
      signal?.addEventListener("abort", onAbort, { once: true });
      r.on("error", (error) => {
        cleanup();
        reject(error);
      });
      if (beforeWrite === undefined) {
        r.once("socket", () => {
          this.options.metrics.onPoolWait?.({ pool, waitMs: performance.now() - queuedAt });
        });
        r.end(req.body);
        return;
      }
      // Nothing (headers included) is written before end(): hold it until the socket is
      // connected, so the last check and the bytes leaving this process are one synchronous step.
      r.once("socket", (socket) => {
        this.options.metrics.onPoolWait?.({ pool, waitMs: performance.now() - queuedAt });
        const go = (): void => {
          try {
            beforeWrite();
          } catch (error) {
            cleanup();
            const refused = error instanceof Error ? error : new Error(String(error));
            r.destroy(refused);
            reject(refused);
            return;
          }
          r.end(req.body);
        };
        if (socket.connecting) socket.once(this.isHttps ? "secureConnect" : "connect", go);
        else go();
      });
    });
  }
}

function deadlineError(timeoutMs: number): Error {
  return Object.assign(
    new Error(`no answer within ${timeoutMs} ms (rate limiter, socket wait and response included)`),
    { code: "KUBE_DEADLINE" },
  );
}

/** Rejects with the signal's reason as soon as it aborts; the promise itself runs on. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => {
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    res.on("error", reject);
    res.on("aborted", () => {
      reject(Object.assign(new Error("response aborted"), { code: "ECONNRESET" }));
    });
  });
}
