/**
 * The shapes the client passes around: objects stay raw JSON (whatever the server sent, unknown
 * fields included), plus the optional logger and metrics hooks callers inject.
 */
import type { ListMeta, ObjectMeta } from "kubernetes-types/meta/v1.js";

/** Any Kubernetes object, as JSON. Never a model class: unknown fields must survive. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  /** Always an array from KubeClient.list (the server may send null for empty lists). */
  items: T[];
}

/** Names one object (or, without name, one collection) by apiVersion and kind. */
export interface ObjectRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string | undefined;
}

/** pino-compatible: (fields, message). The client never chooses a logging library itself. */
export interface KubeLogger {
  debug?(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error?(fields: Record<string, unknown>, message: string): void;
}

export interface RequestMetric {
  readonly verb: string;
  readonly path: string;
  /** HTTP status, or 0 when no response arrived. */
  readonly status: number;
  readonly durationMs: number;
}

export interface WatchReconnectMetric {
  readonly resource: string;
  /** "closed" (server ended the stream), "inactive", "gone" (410, relist), "error". */
  readonly reason: string;
  readonly relist: boolean;
  readonly delayMs: number;
}

/** Optional counters/histograms a caller (the observability module) may hook in. */
export interface KubeMetrics {
  onRequest?(metric: RequestMetric): void;
  onRetry?(metric: { verb: string; path: string; attempt: number; delayMs: number; reason: string }): void;
  onRateLimitWait?(waitMs: number): void;
  /** How long a request waited for a socket of its pool ("request" or "watch"). */
  onPoolWait?(metric: { pool: "request" | "watch"; waitMs: number }): void;
  onWatchReconnect?(metric: WatchReconnectMetric): void;
}

export const silentLogger: KubeLogger = { info: () => undefined, warn: () => undefined };
