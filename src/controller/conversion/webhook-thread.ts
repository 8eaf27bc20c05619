/**
 * The webhook's HTTPS server on a thread of its own (webhook-worker.ts), seen from the
 * controller's thread as a RunningWebhookServer. Conversions are answered there without waiting
 * for this thread; admission paths come back here to their handlers. The thread has its own heap
 * limit: a flood of large bodies (capped in flight by the server anyway) ends that thread, not the
 * controller, and the thread is started again on the same port with the same APIs and certificate.
 */
import { Worker } from "node:worker_threads";
import type { Logger } from "../../observability/index.js";
import type { ApiOfVersions } from "../../runtime/index.js";
import type { ServingCertificate } from "./serving-certificate.js";
import type { FromWebhook, ToWebhook, WebhookWorkerData } from "./webhook-protocol.js";
import type { RunningWebhookServer } from "./webhook-server.js";

const WORKER_URL = new URL("./webhook-worker.js", import.meta.url);
/** The thread's old generation: the bodies in flight (96 MiB at most) and their conversions. */
const DEFAULT_HEAP_MB = 256;

export interface WebhookThreadOptions {
  readonly host: string;
  readonly port: number;
  readonly cert: ServingCertificate;
  /** The APIs it converts now; later changes are sent with register/unregister. */
  readonly apis: () => readonly ApiOfVersions[];
  /** Admission paths and their handlers, read at each request (paths added later: call servePaths). */
  readonly handlers: ReadonlyMap<string, (body: unknown) => unknown>;
  readonly logger: Logger;
  readonly heapMb?: number;
}

export interface WebhookThread extends RunningWebhookServer {
  register(api: ApiOfVersions): void;
  unregister(group: string, kind: string): void;
  /** The admission paths changed: the thread forwards them from now on. */
  servePaths(): void;
}

interface Spawned {
  readonly worker: Worker;
  readonly port: number;
  /** Settles when the thread has exited. */
  readonly exited: Promise<void>;
}

export async function startWebhookThread(options: WebhookThreadOptions): Promise<WebhookThread> {
  const thread = new ThreadedServer(options);
  await thread.start();
  return thread;
}

class ThreadedServer implements WebhookThread {
  #cert: ServingCertificate;
  #closing = false;
  #closed: (() => void) | undefined;
  #current: Spawned | undefined;

  constructor(private readonly options: WebhookThreadOptions) {
    this.#cert = options.cert;
  }

  async start(): Promise<void> {
    this.#current = await this.#spawn(this.options.port);
  }

  get port(): number {
    return this.#current?.port ?? 0;
  }

  useCertificate(cert: ServingCertificate): void {
    this.#cert = cert;
    this.#send({ type: "cert", cert });
  }

  register(api: ApiOfVersions): void {
    this.#send({ type: "register", api });
  }

  unregister(group: string, kind: string): void {
    this.#send({ type: "unregister", group, kind });
  }

  servePaths(): void {
    this.#send({ type: "paths", paths: [...this.options.handlers.keys()] });
  }

  async close(drainMs?: number): Promise<void> {
    const current = this.#current;
    if (this.#closing || current === undefined) return;
    this.#closing = true;
    const done = new Promise<void>((resolve) => {
      this.#closed = resolve;
    });
    this.#send({ type: "close", ...(drainMs === undefined ? {} : { drainMs }) });
    await Promise.race([done, current.exited]);
    await current.worker.terminate();
  }

  #send(message: ToWebhook): void {
    this.#current?.worker.postMessage(message);
  }

  async #answer(id: number, path: string, body: unknown): Promise<void> {
    const handler = this.options.handlers.get(path);
    try {
      if (handler === undefined) throw new Error(`no handler for ${path}`);
      this.#send({ type: "answer", id, answer: await handler(body) });
    } catch (e) {
      this.#send({ type: "answer", id, error: e instanceof Error ? e.message : String(e) });
    }
  }

  #onMessage(message: FromWebhook): void {
    switch (message.type) {
      case "handle":
        void this.#answer(message.id, message.path, message.body);
        return;
      case "log":
        this.options.logger[message.level](message.fields, message.message);
        return;
      case "closed":
        this.#closed?.();
        return;
      default:
        return;
    }
  }

  /** A thread that died while serving (its heap limit, a crash) is started again on the same port. */
  #onExit(worker: Worker): void {
    const current = this.#current;
    if (this.#closing || current?.worker !== worker) return;
    const { logger } = this.options;
    logger.error({ port: current.port }, "conversion webhook thread stopped; starting it again");
    this.#spawn(current.port).then(
      (next) => {
        this.#current = next;
      },
      (error: unknown) => {
        logger.error(
          { err: error instanceof Error ? error.message : String(error) },
          "conversion webhook thread could not start again",
        );
      },
    );
  }

  #spawn(port: number): Promise<Spawned> {
    const { options } = this;
    const data: WebhookWorkerData = {
      host: options.host,
      port,
      cert: this.#cert,
      apis: options.apis(),
      paths: [...options.handlers.keys()],
    };
    const worker = new Worker(WORKER_URL, {
      workerData: data,
      resourceLimits: {
        maxOldGenerationSizeMb: options.heapMb ?? DEFAULT_HEAP_MB,
        maxYoungGenerationSizeMb: 4,
        stackSizeMb: 4,
      },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const exited = new Promise<void>((settle) => {
      worker.once("exit", () => {
        settle();
      });
    });
    return new Promise((resolve, reject) => {
      let listening = false;
      worker.on("message", (message: FromWebhook) => {
        if (message.type === "listening") {
          listening = true;
          resolve({ worker, port: message.port, exited });
        } else if (message.type === "failed") {
          reject(new Error(message.error));
          void worker.terminate();
        } else this.#onMessage(message);
      });
      worker.on("error", (error) => {
        if (!listening) reject(error);
        else options.logger.error({ err: error.message }, "conversion webhook thread failed");
      });
      worker.on("exit", () => {
        if (listening) this.#onExit(worker);
        else reject(new Error("the conversion webhook thread exited before it listened"));
      });
    });
  }
}
