/**
 * The conversion webhook of this controller: started on first need (the first RGD with several
 * versions), served by every replica, leader or not. Knows the API of each kind it converts (the
 * RGD reconcile registers it before it installs the CRD, so the API server never asks about a kind
 * we have not compiled), says where the API server reaches it and which CA to trust, and rotates
 * its certificate, telling the controller so every CRD's caBundle is rewritten.
 */
import type { KubeClient } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import type { ApiOfVersions } from "../../runtime/index.js";
import type { WebhookClientConfig } from "../../schema/index.js";
import { memoryCertificateStore, secretCertificateStore, type CertificateStore } from "./certificate-store.js";
import type { ServingCertificate } from "./serving-certificate.js";
import { reviewConversion } from "./conversion-review.js";
import { CONVERT_PATH, startWebhookServer, type RunningWebhookServer } from "./webhook-server.js";
import { startWebhookThread, type WebhookThread } from "./webhook-thread.js";

export interface ConversionWebhookOptions {
  /** Listen address; default 127.0.0.1 and a free port (a local cluster's API server dials loopback). */
  readonly host?: string;
  readonly port?: number;
  /**
   * Where the API server dials when it is not the listen address: a load balancer in front of
   * replicas running outside the cluster (as etcd's advertise-client-urls). Every replica then
   * writes the same clientConfig, and the serving certificate is for this host. Share the
   * certificate through `secret` so each replica behind it is trusted.
   */
  readonly advertise?: { readonly host: string; readonly port: number };
  /** In a cluster: the Service in front of every replica. Without it the API server dials https://host:port/convert. */
  readonly service?: { readonly namespace: string; readonly name: string; readonly port?: number };
  /** Keep the CA and certificate in this Secret so every replica serves the same ones (needs `client`). */
  readonly secret?: { readonly namespace: string; readonly name: string };
  readonly client?: KubeClient;
  readonly logger: Logger;
  /** How often the certificate is checked for rotation; default hourly. */
  readonly rotationCheckMs?: number;
  readonly now?: () => Date;
}

/** The server, and its thread when it runs on one (then register, unregister and servePaths reach it). */
type Endpoint = RunningWebhookServer & { readonly thread?: WebhookThread };

interface Started {
  readonly server: Endpoint;
  readonly cert: ServingCertificate;
}

export class ConversionWebhook {
  readonly #options: ConversionWebhookOptions;
  readonly #apis = new Map<string, ApiOfVersions>();
  readonly #store: CertificateStore;
  readonly #rotated = new Set<() => void>();
  /** Other paths served beside /convert (admission webhooks), read at each request. */
  readonly #handlers = new Map<string, (body: unknown) => unknown>();
  #started: Promise<Started> | undefined;
  #cert: ServingCertificate | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Closed for good (the controller stops): nothing may start a server that nobody would close. */
  #closed = false;

  constructor(options: ConversionWebhookOptions) {
    this.#options = options;
    this.#store =
      options.secret !== undefined && options.client !== undefined
        ? secretCertificateStore(options.client, options.secret)
        : memoryCertificateStore();
    // Replicas behind one address with a CA each: the CRD trusts only the one whose CA it carries.
    if ((options.advertise !== undefined || options.service !== undefined) && options.secret === undefined) {
      options.logger.warn(
        {},
        "conversion webhook: an advertised address or Service without a certificate Secret; with several replicas behind it, only the one whose CA the CRD carries is trusted",
      );
    }
  }

  /** The API of `group`/`kind`; the newest registration wins. */
  register(api: ApiOfVersions): void {
    this.#apis.set(`${api.kind}.${api.group}`, api);
    // Chained at once, so whoever awaits the server next (clientConfig, a CRD's install) gets the moved one.
    this.#moveToThread();
    void this.#started?.then(({ server }) => {
      server.thread?.register(api);
    }, ignore);
  }
  unregister(group: string, kind: string): void {
    this.#apis.delete(`${kind}.${group}`);
    void this.#started?.then(({ server }) => {
      server.thread?.unregister(group, kind);
    }, ignore);
  }
  lookup(group: string, kind: string): ApiOfVersions | undefined {
    return this.#apis.get(`${kind}.${group}`);
  }

  /** Serves POST `path` with `handler` too (an admission webhook on the same port and certificate). */
  serve(path: string, handler: (body: unknown) => unknown): void {
    this.#handlers.set(path, handler);
    void this.#started?.then(({ server }) => {
      server.thread?.servePaths();
    }, ignore);
  }

  /** Called after a rotation changed the CA bundle (the controller re-installs every CRD with the new one). */
  onRotation(listener: () => void): void {
    this.#rotated.add(listener);
  }

  #hosts(): string[] {
    const service = this.#options.service;
    if (service !== undefined)
      return [`${service.name}.${service.namespace}.svc`, `${service.name}.${service.namespace}.svc.cluster.local`];
    return [this.#options.advertise?.host ?? this.#options.host ?? "127.0.0.1"];
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }

  start(): Promise<Started> {
    if (this.#closed) return Promise.reject(new Error("the conversion webhook is closed: the controller is stopping"));
    this.#started ??= (async () => {
      const cert = await this.#store.current(this.#hosts(), this.#now());
      const server = await this.#listen(this.#options.port ?? 0, cert);
      this.#cert = cert;
      this.#timer = setInterval(() => {
        void this.checkRotation();
      }, this.#options.rotationCheckMs ?? 3_600_000);
      this.#timer.unref();
      this.#options.logger.info(
        { port: server.port, notAfter: cert.notAfter.toISOString(), thread: server.thread !== undefined },
        "conversion webhook serving",
      );
      return { server, cert };
    })();
    this.#forgetIfFailed();
    return this.#started;
  }

  /**
   * Conversions are answered on a thread of their own (webhook-thread.ts), so they never wait
   * behind a reconcile; admission paths alone are served here (the thread would cost ~10 MB for
   * nothing to convert). The first API to convert moves the server to its thread, on the same port.
   */
  async #listen(port: number, cert: ServingCertificate): Promise<Endpoint> {
    const options = { host: this.#options.host ?? "127.0.0.1", port, cert, logger: this.#options.logger };
    if (this.#apis.size > 0) {
      const thread = await startWebhookThread({
        ...options,
        apis: () => [...this.#apis.values()],
        handlers: this.#handlers,
      });
      return Object.assign(thread, { thread });
    }
    return startWebhookServer({
      ...options,
      convert: (body) => reviewConversion(body, (group, kind) => this.lookup(group, kind)),
      handlers: this.#handlers,
    });
  }

  /** The server moves to its thread: drained here (requests taken are answered), then listening there. */
  #moveToThread(): void {
    const previous = this.#started;
    if (previous === undefined) return;
    this.#started = previous.then(async ({ server, cert }) => {
      if (server.thread !== undefined || this.#closed) return { server, cert };
      await server.close();
      const moved = await this.#listen(server.port, this.#cert ?? cert);
      this.#options.logger.info({ port: moved.port }, "conversion webhook moved to its own thread");
      return { server: moved, cert };
    });
    this.#forgetIfFailed();
  }

  #forgetIfFailed(): void {
    const started = this.#started;
    started?.catch(() => {
      if (this.#started === started) this.#started = undefined;
    });
  }

  /** Re-reads (or makes) the certificate; a changed one is served at once and announced. */
  async checkRotation(): Promise<boolean> {
    const started = await this.start();
    const cert = await this.#store.current(this.#hosts(), this.#now()).catch((e: unknown) => {
      this.#options.logger.warn(
        { err: e instanceof Error ? e.message : String(e) },
        "conversion webhook certificate check failed; retried later",
      );
      return undefined;
    });
    if (cert === undefined || (cert.certPem === this.#cert?.certPem && cert.caPem === this.#cert.caPem)) return false;
    started.server.useCertificate(cert);
    this.#cert = cert;
    for (const listener of this.#rotated) listener();
    return true;
  }

  /** Where the API server reaches the webhook and the CA it must trust; starts the webhook if needed. */
  async clientConfig(path: string = CONVERT_PATH): Promise<WebhookClientConfig> {
    const { server } = await this.start();
    const caBundle = Buffer.from(this.#cert?.caPem ?? "", "utf8").toString("base64");
    const service = this.#options.service;
    if (service !== undefined)
      return {
        service: { namespace: service.namespace, name: service.name, path, port: service.port ?? 443 },
        caBundle,
      };
    const advertise = this.#options.advertise;
    if (advertise !== undefined) return { url: `https://${hostPort(advertise.host, advertise.port)}${path}`, caBundle };
    return { url: `https://${hostPort(this.#options.host ?? "127.0.0.1", server.port)}${path}`, caBundle };
  }

  /**
   * Stops serving without losing a conversion: new connections are refused (the API server's next
   * one reaches another replica through the Service or the advertised address) and requests
   * already taken are answered (webhook-server.ts), for at most `drainMs`.
   */
  async close(drainMs?: number): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    const started = this.#started;
    this.#started = undefined;
    if (started !== undefined) await (await started.catch(() => undefined))?.server.close(drainMs);
  }
}

/** A start that failed says so where it is awaited (start, clientConfig), not here. */
const ignore = (): void => undefined;

/** host:port for a URL, brackets around an IPv6 address. */
function hostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}
