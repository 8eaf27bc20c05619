/**
 * An informer: list, then watch from the list's resourceVersion (with bookmarks), keeping a
 * Store and calling handlers after each change. It never gives up: 410 Gone relists, a server
 * close or a silent stream resumes from the last resourceVersion, every other failure backs
 * off with jitter and tries again — until stop(). Each reconnect is logged and counted.
 */
import { Backoff, sleep, type BackoffOptions } from "./backoff.js";
import { ApiError, isGone } from "./errors.js";
import { objectKey, Store, type IndexFunc } from "./store.js";
import type { IncomingMessage } from "node:http";
import type { ListOptions, WatchOptions } from "./request-options.js";
import type { KubeList, KubeLogger, KubeMetrics, KubeObject } from "./types.js";
import { consumeWatch, type WatchEnd, type WatchEvent } from "./watch-stream.js";
import { internStrings } from "./intern-strings.js";

export interface InformerOptions {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
  /** Watch PartialObjectMetadata only (cheap: no spec/status on the wire or in memory). */
  readonly metadataOnly?: boolean;
  readonly indexers?: Readonly<Record<string, IndexFunc<KubeObject>>>;
  /** Reconnect a stream that sent nothing (not even a bookmark) for this long. Default 5 min. */
  readonly inactivityTimeoutMs?: number;
  /** Server-side watch timeout; default random 300–600 s so watches don't all end together. */
  readonly watchTimeoutSeconds?: number;
  readonly backoff?: BackoffOptions;
  /**
   * Applied to every object before it is stored or handed to handlers (client-go's
   * TransformFunc): drop what no reader needs, e.g. `stripManagedFields`. Must not throw.
   */
  readonly transform?: (object: KubeObject) => KubeObject;
  /**
   * Part of the sharing key (informer-manager.ts): informers of the same selection whose
   * transforms differ must not be shared, e.g. two projections of one kind during a re-list.
   */
  readonly variant?: string;
}

/** The transform most caches want: managedFields are often half an object and nobody reads them. */
export function stripManagedFields(object: KubeObject): KubeObject {
  if (object.metadata?.managedFields === undefined) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** What an informer needs from a client (KubeClient implements it; tests may fake it). */
export interface InformerSource {
  readonly logger: KubeLogger;
  readonly metrics: KubeMetrics;
  list<T extends KubeObject>(apiVersion: string, kind: string, options: ListOptions): Promise<KubeList<T>>;
  openWatch(apiVersion: string, kind: string, options: WatchOptions): Promise<IncomingMessage>;
  /** Resolves when the server answers again after an outage (optional: fakes may leave it out). */
  whenServerBack?(signal: AbortSignal): Promise<void>;
  /** When the server last came back after an outage (optional, as whenServerBack). */
  serverRecoveredAt?(): number | undefined;
}

export interface InformerHandlers<T extends KubeObject> {
  onAdd?(object: T): void;
  onUpdate?(oldObject: T, newObject: T): void;
  onDelete?(object: T): void;
}

export interface InformerStats {
  /** Full lists (the first one, and one per 410 Gone). */
  lists: number;
  /** Watch requests opened. */
  watches: number;
  /** Reconnects, by reason. */
  reconnects: Record<string, number>;
}

/** A watch that lasted this long (or carried an event) counts as healthy: backoff starts afresh. */
const HEALTHY_WATCH_MS = 1_000;

/**
 * For this long after the server came back, failures are retried on a short, capped backoff: a
 * kube-apiserver that answers /readyz still refuses some watches for a moment (429 "storage is
 * (re)initializing", 503), and the backoff grown while it was down (15 s after a 10 s outage)
 * must not be slept then. Measured in bench/scenarios/apiserver-restart.mjs.
 */
const RECOVERY_WINDOW_MS = 10_000;
const RECOVERY_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 1_000, jitter: 0.5 };

export class Informer<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;
  readonly stats: InformerStats = { lists: 0, watches: 0, reconnects: {} };
  private readonly handlers = new Set<InformerHandlers<T>>();
  private readonly abort = new AbortController();
  private resourceVersion: string | undefined;
  private running: Promise<void> | undefined;
  private synced = false;
  private readonly syncWaiters: (() => void)[] = [];
  private readonly resourceName: string;

  constructor(
    private readonly client: InformerSource,
    readonly options: InformerOptions,
  ) {
    this.store = new Store<T>(options.indexers ?? {});
    this.resourceName = `${options.apiVersion}/${options.kind}${options.namespace === undefined ? "" : ` in ${options.namespace}`}${options.labelSelector === undefined ? "" : ` [${options.labelSelector}]`}`;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  get lastResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /** Adds handlers; objects already in the store are replayed to onAdd. Returns a remover. */
  addHandlers(handlers: InformerHandlers<T>): () => void {
    this.handlers.add(handlers);
    for (const object of this.store.list()) this.call("add", () => handlers.onAdd?.(object));
    return () => {
      this.handlers.delete(handlers);
    };
  }

  start(): this {
    this.running ??= this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.abort.abort(new Error("informer stopped"));
    await this.running;
  }

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Resolves once the first list is in the store; rejects after timeoutMs if given. */
  waitForSync(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              reject(
                new Error(
                  `informer ${this.resourceName} not synced after ${options.timeoutMs ?? 0} ms (${JSON.stringify(this.stats)})`,
                ),
              );
            }, options.timeoutMs);
      // A wait on an informer stopped meanwhile (a shutdown during a re-selection) must not keep
      // the process alive until its deadline.
      timer?.unref();
      this.syncWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private async run(): Promise<void> {
    const backoff = new Backoff({ initialMs: 500, maxMs: 30_000, ...this.options.backoff });
    const recovery = new Backoff(RECOVERY_BACKOFF);
    let recoverySeen: number | undefined;
    const signal = this.abort.signal;
    let needList = true;
    while (!signal.aborted) {
      let reason: string;
      let error: unknown;
      const attempt = { opened: false, events: 0, openedAt: 0 };
      try {
        if (needList) {
          await this.relist();
          needList = false;
          backoff.reset();
        }
        const end = await this.watchOnce(attempt);
        if (end === "gone") {
          reason = "gone";
          needList = true;
        } else {
          reason = end.reason;
          if (end.reason === "stopped") break;
          if (end.reason === "error" || end.reason === "malformed") error = end.error;
        }
      } catch (e) {
        if (this.stopped) break;
        error = e;
        reason = isGone(e) ? "gone" : "error";
        if (isGone(e)) needList = true;
      }
      // A watch that opened and carried events (or lived a while) was a success: start afresh.
      const healthy = attempt.opened && (attempt.events > 0 || Date.now() - attempt.openedAt >= HEALTHY_WATCH_MS);
      if (healthy) backoff.reset();
      // 410 relists at once (the list is the recovery); a server close after a healthy watch
      // resumes at once; everything else backs off.
      // Right after an outage ended, the short recovery backoff instead (a new recovery starts it afresh).
      const recoveredAt = this.client.serverRecoveredAt?.();
      const recovering = recoveredAt !== undefined && Date.now() - recoveredAt < RECOVERY_WINDOW_MS;
      if (recovering && recoverySeen !== recoveredAt) {
        recoverySeen = recoveredAt;
        recovery.reset();
      }
      const delay =
        reason === "gone" || (reason === "closed" && healthy) ? 0 : recovering ? recovery.next() : backoff.next();
      this.stats.reconnects[reason] = (this.stats.reconnects[reason] ?? 0) + 1;
      this.client.metrics.onWatchReconnect?.({ resource: this.resourceName, reason, relist: needList, delayMs: delay });
      const fields = {
        resource: this.resourceName,
        reason,
        relist: needList,
        delayMs: delay,
        resourceVersion: this.resourceVersion,
        ...(error === undefined ? {} : { error: (error as Error).message }),
      };
      if (error === undefined) this.client.logger.info(fields, "watch reconnecting");
      else this.client.logger.warn(fields, "watch failed, reconnecting");
      // Woken because the server is back: whatever fails next starts from the first step again.
      if (await this.pause(delay, reason === "error")) backoff.reset();
    }
  }

  /**
   * Sleeps delayMs; after a failure, wakes early when the client sees the server back (one shared
   * /readyz probe), so an API-server restart costs no backoff. Any failure qualifies (a 404 for a
   * custom resource whose CRD the restarting server has not registered yet, as much as a refused
   * connection): the probe wakes nobody unless it saw the server down, so a server that is fine
   * but refuses this watch only costs one /readyz per backoff step. True when woken by the probe.
   */
  private async pause(delayMs: number, failed: boolean): Promise<boolean> {
    if (delayMs <= 0) return false;
    const done = new AbortController();
    const signal = AbortSignal.any([done.signal, this.abort.signal]);
    const back =
      failed && this.client.whenServerBack !== undefined ? [this.client.whenServerBack(signal).then(() => true)] : [];
    const woken = await Promise.race([
      sleep(delayMs, signal).then(
        () => false,
        () => false,
      ),
      ...back,
    ]);
    done.abort();
    return woken;
  }

  /**
   * What the store keeps of a decoded object: the transform's result, its repeated short strings
   * shared with every other cached object (intern-strings.ts; the store holds it for hours).
   */
  private cached(object: KubeObject): T {
    const o = this.options;
    return internStrings(o.transform === undefined ? object : o.transform(object)) as T;
  }

  /** Lists everything and reconciles the store with it: adds, updates and deletes it missed. */
  private async relist(): Promise<void> {
    this.stats.lists++;
    const o = this.options;
    const list = await this.client.list<T>(o.apiVersion, o.kind, {
      namespace: o.namespace,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      metadataOnly: o.metadataOnly === true,
    });
    if (this.abort.signal.aborted) return;
    const seen = new Set<string>();
    for (const listed of list.items) {
      const item = this.cached(listed);
      seen.add(objectKey(item));
      this.apply("MODIFIED", item, false);
    }
    for (const key of this.store.keys()) {
      const old = this.store.get(key);
      if (!seen.has(key) && old !== undefined) this.apply("DELETED", old, false);
    }
    this.resourceVersion = list.metadata.resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  private async watchOnce(attempt: { opened: boolean; events: number; openedAt: number }): Promise<WatchEnd | "gone"> {
    const o = this.options;
    this.stats.watches++;
    const res = await this.client.openWatch(o.apiVersion, o.kind, {
      namespace: o.namespace,
      labelSelector: o.labelSelector,
      fieldSelector: o.fieldSelector,
      metadataOnly: o.metadataOnly === true,
      allowWatchBookmarks: true,
      signal: this.abort.signal,
      timeoutSeconds: o.watchTimeoutSeconds ?? 300 + Math.floor(Math.random() * 300),
      ...(this.resourceVersion === undefined ? {} : { resourceVersion: this.resourceVersion }),
    });
    attempt.opened = true;
    attempt.openedAt = Date.now();
    // Set from the event callback; an object so the checks below are not narrowed away.
    const outcome: { gone: boolean; failure?: ApiError } = { gone: false };
    const end = await consumeWatch(
      res,
      { inactivityMs: o.inactivityTimeoutMs ?? 300_000, signal: this.abort.signal },
      (event) => {
        attempt.events++;
        if (event.type === "ERROR") {
          const status = event.object as { code?: number; reason?: string; message?: string };
          const code = status.code ?? 500;
          if (code === 410 || status.reason === "Expired" || status.reason === "Gone") outcome.gone = true;
          else
            outcome.failure = new ApiError({
              status: code,
              verb: "WATCH",
              path: this.resourceName,
              body: JSON.stringify(event.object),
            });
          return "stop";
        }
        this.apply(event.type, (event.type === "BOOKMARK" ? event.object : this.cached(event.object)) as T, true);
        return "continue";
      },
    );
    if (outcome.gone) return "gone";
    if (outcome.failure !== undefined) return { reason: "error", error: outcome.failure };
    return end;
  }

  /** One change to the store, then the handlers (which therefore see the store with it). */
  private apply(type: WatchEvent["type"], object: T, fromWatch: boolean): void {
    const rv = object.metadata?.resourceVersion;
    if (type === "BOOKMARK") {
      if (rv !== undefined) this.resourceVersion = rv;
      return;
    }
    const key = objectKey(object);
    if (type === "DELETED") {
      const old = this.store.remove(key);
      if (old !== undefined) for (const h of this.handlers) this.call("delete", () => h.onDelete?.(object));
    } else {
      const old = this.store.get(key);
      // The same version again (a relist, or a replayed event) changes nothing.
      if (old !== undefined && old.metadata?.resourceVersion === rv) {
        if (fromWatch && rv !== undefined) this.resourceVersion = rv;
        return;
      }
      this.store.upsert(object);
      for (const h of this.handlers) {
        if (old === undefined) this.call("add", () => h.onAdd?.(object));
        else this.call("update", () => h.onUpdate?.(old, object));
      }
    }
    // Only watch events move the resume point; a relist sets it from the list itself.
    if (fromWatch && rv !== undefined) this.resourceVersion = rv;
  }

  private call(what: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      // A failing handler must not stop the informer.
      this.client.logger.warn(
        { resource: this.resourceName, handler: what, error: (error as Error).message },
        "informer handler threw",
      );
    }
  }
}
