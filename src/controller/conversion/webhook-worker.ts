/**
 * The entry of the webhook's thread: the HTTPS server (webhook-server.ts) and every conversion it
 * answers run here, so a ConversionReview never waits behind the controller's reconciles — the
 * API server's reads and writes of a multi-version kind, and storage migration, go at the speed
 * of this thread. The APIs it converts arrive as messages; admission paths are answered by the
 * controller's thread (their handlers are the controller's), asked and awaited by message.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Logger } from "../../observability/index.js";
import type { ApiOfVersions } from "../../runtime/index.js";
import type { FromWebhook, ToWebhook, WebhookWorkerData } from "./webhook-protocol.js";
import { startWebhookServer, type RunningWebhookServer } from "./webhook-server.js";

const data = workerData as WebhookWorkerData;
const apis = new Map<string, ApiOfVersions>(data.apis.map((api) => [`${api.kind}.${api.group}`, api]));
const waiting = new Map<number, { resolve: (answer: unknown) => void; reject: (error: Error) => void }>();
let nextId = 1;

const post = (message: FromWebhook): void => {
  parentPort?.postMessage(message);
};

const logger: Logger = {
  error: (fields, message) => {
    post({ type: "log", level: "error", fields, message });
  },
  warn: (fields, message) => {
    post({ type: "log", level: "warn", fields, message });
  },
  info: (fields, message) => {
    post({ type: "log", level: "info", fields, message });
  },
  debug: (fields, message) => {
    post({ type: "log", level: "debug", fields, message });
  },
  child: () => logger,
};

/** An admission path: the controller's thread answers it. */
const forward =
  (path: string) =>
  (body: unknown): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      post({ type: "handle", id, path, body });
    });

const handlers = new Map<string, (body: unknown) => unknown>();
const setPaths = (paths: readonly string[]): void => {
  for (const path of paths) if (!handlers.has(path)) handlers.set(path, forward(path));
};
setPaths(data.paths);

let server: RunningWebhookServer | undefined;
/**
 * The converter (the runtime's CEL) is loaded on the first conversion: a controller that serves
 * only admission paths here (no RGD with several versions) keeps this thread small.
 */
let loaded: Promise<typeof import("./conversion-review.js")> | undefined;
const conversions = (): Promise<typeof import("./conversion-review.js")> =>
  (loaded ??= import("./conversion-review.js"));

parentPort?.on("message", (message: ToWebhook) => {
  switch (message.type) {
    case "register":
      apis.set(`${message.api.kind}.${message.api.group}`, message.api);
      return;
    case "unregister":
      apis.delete(`${message.kind}.${message.group}`);
      return;
    case "paths":
      setPaths(message.paths);
      return;
    case "cert":
      server?.useCertificate(message.cert);
      return;
    case "answer": {
      const pending = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve(message.answer);
      return;
    }
    case "close":
      void (server?.close(message.drainMs) ?? Promise.resolve()).then(() => {
        post({ type: "closed" });
      });
      return;
  }
});

startWebhookServer({
  host: data.host,
  port: data.port,
  cert: data.cert,
  convert: async (body) => (await conversions()).reviewConversion(body, (group, kind) => apis.get(`${kind}.${group}`)),
  handlers,
  logger,
  ...(data.maxInflightBytes === undefined ? {} : { maxInflightBytes: data.maxInflightBytes }),
}).then(
  (running) => {
    server = running;
    post({ type: "listening", port: running.port });
  },
  (error: unknown) => {
    post({ type: "failed", error: error instanceof Error ? error.message : String(error) });
  },
);
