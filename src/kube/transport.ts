/**
 * HTTP(S) to one API server over a keep-alive agent: auth headers, the shared rate limiter,
 * retries with jittered backoff (429, 5xx, connection failures; Retry-After honoured), one
 * credential refresh on 401. Bodies stay strings; parsing is the caller's business.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import { Backoff, parseRetryAfter, sleep, type BackoffOptions } from "./backoff.js";
import type { ConnectionConfig } from "./connection-config.js";
import type { CredentialProvider, RequestCredentials } from "./credentials.js";
import { ApiError, TransportError } from "./errors.js";
import type { TokenBucket } from "./rate-limiter.js";
import type { KubeLogger, KubeMetrics } from "./types.js";

export interface HttpRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Path with query string. */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly accept?: string;
  /** Retry 429/5xx/connection failures (default true). */
  readonly retry?: boolean;
  readonly signal?: AbortSignal;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface TransportOptions {
  readonly maxRetries?: number;
  readonly backoff?: BackoffOptions;
  /** Per request (not for watches); default 60 s. */
  readonly timeoutMs?: number;
  readonly logger: KubeLogger;
  readonly metrics: KubeMetrics;
}

const RETRY_STATUS = new Set([429, 500, 502, 503, 504]);
/** Errors where the request surely never reached the server: safe to retry any verb. */
const NOT_SENT = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ENOTFOUND"]);
const CONNECTION_LOST = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED", "UND_ERR_SOCKET"]);
const MAX_RETRY_AFTER_MS = 60_000;

export class Transport {
  private readonly url: URL;
  private readonly isHttps: boolean;
  private agent: http.Agent;
  private agentCert: Buffer | undefined;

  constructor(
    private readonly config: ConnectionConfig,
    private readonly credentials: CredentialProvider,
    private readonly limiter: TokenBucket,
    private readonly options: TransportOptions,
  ) {
    this.url = new URL(config.server);
    this.isHttps = this.url.protocol === "https:";
    this.agent = this.makeAgent(undefined);
  }

  get server(): string {
    return this.config.server;
  }

  private makeAgent(creds: RequestCredentials | undefined): http.Agent {
    this.agentCert = creds?.clientCert;
    if (!this.isHttps) return new http.Agent({ keepAlive: true, maxSockets: 64 });
    const c = this.config;
    return new https.Agent({
      keepAlive: true,
      maxSockets: 64,
      rejectUnauthorized: !c.insecureSkipTlsVerify,
      ...(c.ca === undefined || c.insecureSkipTlsVerify ? {} : { ca: c.ca }),
      ...(c.tlsServerName === undefined ? {} : { servername: c.tlsServerName }),
      ...(creds?.clientCert === undefined || creds.clientKey === undefined ? {} : { cert: creds.clientCert, key: creds.clientKey }),
    });
  }

  /** Exec plugins may hand out a new client certificate: the agent follows it. */
  private agentFor(creds: RequestCredentials): http.Agent {
    if (creds.clientCert !== this.agentCert && !(creds.clientCert !== undefined && this.agentCert?.equals(creds.clientCert) === true)) {
      this.agent.destroy();
      this.agent = this.makeAgent(creds);
    }
    return this.agent;
  }

  close(): void {
    this.agent.destroy();
  }

  async request(req: HttpRequest): Promise<HttpResponse> {
    const backoff = new Backoff(this.options.backoff);
    const maxRetries = req.retry === false ? 0 : this.options.maxRetries ?? 5;
    let refreshedAuth = false;
    for (let attempt = 0; ; attempt++) {
      const creds = await this.credentials.get();
      await this.waitForToken();
      const started = performance.now();
      let response: HttpResponse;
      try {
        const res = await this.send(req, creds, this.options.timeoutMs ?? 60_000);
        response = { status: res.statusCode ?? 0, headers: res.headers, body: await readBody(res) };
      } catch (error) {
        this.record(req, 0, started);
        if (req.signal?.aborted === true) throw error;
        const code = (error as NodeJS.ErrnoException).code ?? "";
        const retryable = NOT_SENT.has(code) || ((CONNECTION_LOST.has(code) || (error as Error).message.includes("socket hang up")) && req.method !== "POST");
        if (!retryable || attempt >= maxRetries) throw new TransportError(req.method, req.path, { cause: error });
        await this.pause(req, attempt, backoff.next(), code || (error as Error).message);
        continue;
      }
      this.record(req, response.status, started);
      if (response.status === 401 && !refreshedAuth && this.credentials.invalidate(creds)) {
        refreshedAuth = true;
        continue;
      }
      if (response.status >= 200 && response.status < 300) return response;
      if (RETRY_STATUS.has(response.status) && attempt < maxRetries) {
        const retryAfter = parseRetryAfter(response.headers["retry-after"]);
        await this.pause(req, attempt, retryAfter === undefined ? backoff.next() : Math.min(retryAfter, MAX_RETRY_AFTER_MS), `HTTP ${response.status}`);
        continue;
      }
      throw new ApiError({ status: response.status, verb: req.method, path: req.path, body: response.body });
    }
  }

  /** Opens a streaming GET (watch). Non-2xx answers become ApiError; no retries here. */
  async stream(req: HttpRequest): Promise<IncomingMessage> {
    let creds = await this.credentials.get();
    for (let authRetry = 0; ; authRetry++) {
      await this.waitForToken();
      const started = performance.now();
      let res: IncomingMessage;
      try {
        res = await this.send(req, creds, undefined);
      } catch (error) {
        this.record(req, 0, started);
        throw new TransportError(req.method, req.path, { cause: error });
      }
      this.record(req, res.statusCode ?? 0, started);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) return res;
      const body = await readBody(res).catch(() => "");
      if (status === 401 && authRetry === 0 && this.credentials.invalidate(creds)) {
        creds = await this.credentials.get();
        continue;
      }
      throw new ApiError({ status, verb: "WATCH", path: req.path, body });
    }
  }

  private async waitForToken(): Promise<void> {
    const waited = await this.limiter.acquire();
    if (waited > 1) this.options.metrics.onRateLimitWait?.(waited);
  }

  private async pause(req: HttpRequest, attempt: number, delayMs: number, reason: string): Promise<void> {
    this.options.metrics.onRetry?.({ verb: req.method, path: req.path, attempt: attempt + 1, delayMs, reason });
    this.options.logger.debug?.({ verb: req.method, path: req.path, attempt: attempt + 1, delayMs, reason }, "retrying kube API request");
    await sleep(delayMs, req.signal);
  }

  private record(req: HttpRequest, status: number, started: number): void {
    this.options.metrics.onRequest?.({ verb: req.method, path: req.path.split("?")[0] ?? req.path, status, durationMs: performance.now() - started });
  }

  private send(req: HttpRequest, creds: RequestCredentials, timeoutMs: number | undefined): Promise<IncomingMessage> {
    const headers: Record<string, string> = { accept: req.accept ?? "application/json", "user-agent": "kro-ts" };
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
      agent: this.agentFor(creds),
      ...(req.signal === undefined ? {} : { signal: req.signal }),
    };
    return new Promise((resolve, reject) => {
      const r = (this.isHttps ? https.request : http.request)(options, resolve);
      r.on("error", reject);
      if (timeoutMs !== undefined) {
        r.setTimeout(timeoutMs, () => {
          r.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: "ETIMEDOUT" }));
        });
      }
      r.end(req.body);
    });
  }
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (c: Buffer) => chunks.push(c));
    res.on("end", () => { resolve(Buffer.concat(chunks).toString("utf8")); });
    res.on("error", reject);
    res.on("aborted", () => { reject(Object.assign(new Error("response aborted"), { code: "ECONNRESET" })); });
  });
}
