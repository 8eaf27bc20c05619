/** The messages between the webhook's thread (webhook-worker.ts) and the controller (webhook-thread.ts). */
import type { ApiOfVersions } from "../../runtime/index.js";
import type { ServingCertificate } from "./serving-certificate.js";

export interface WebhookWorkerData {
  readonly host: string;
  readonly port: number;
  readonly cert: ServingCertificate;
  readonly apis: readonly ApiOfVersions[];
  /** Paths answered by the controller's thread (admission webhooks). */
  readonly paths: readonly string[];
  readonly maxInflightBytes?: number;
}

export type ToWebhook =
  | { readonly type: "register"; readonly api: ApiOfVersions }
  | { readonly type: "unregister"; readonly group: string; readonly kind: string }
  | { readonly type: "paths"; readonly paths: readonly string[] }
  | { readonly type: "cert"; readonly cert: ServingCertificate }
  | { readonly type: "close"; readonly drainMs?: number }
  | { readonly type: "answer"; readonly id: number; readonly answer?: unknown; readonly error?: string };

export type FromWebhook =
  | { readonly type: "listening"; readonly port: number }
  | { readonly type: "failed"; readonly error: string }
  /** A request on an admission path: answered by the controller's handler for it. */
  | { readonly type: "handle"; readonly id: number; readonly path: string; readonly body: unknown }
  | {
      readonly type: "log";
      readonly level: "error" | "warn" | "info" | "debug";
      readonly fields: object;
      readonly message: string;
    }
  | { readonly type: "closed" };
