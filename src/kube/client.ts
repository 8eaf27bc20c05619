/**
 * KubeClient: typed-by-kubernetes-types, raw-JSON requests against one API server — get,
 * paginated list, create, server-side apply, merge patch, delete with preconditions, status
 * writes, watches and informers. The body the server returns is the object you get, unchanged.
 */
import type { IncomingMessage } from "node:http";
import { bearerConnection, type ConnectionConfig } from "./connection-config.js";
import type { CredentialProvider } from "./credentials.js";
import { Discovery, type ResourceInfo } from "./discovery.js";
import { ApiError } from "./errors.js";
import { Informer, type InformerOptions, type InformerSource } from "./informer.js";
import { InformerManager } from "./informer-manager.js";
import { query, resourcePath } from "./resource-path.js";
import { ServerReachability } from "./server-reachability.js";
import type { Transport } from "./transport.js";
import type {
  ApplyOptions,
  DeleteOptions,
  ListOptions,
  RequestControl,
  WatchOptions,
  WriteOptions,
} from "./request-options.js";
import type { KubeList, KubeLogger, KubeMetrics, KubeObject, ObjectRef } from "./types.js";
import type { WriteFence } from "./write-fence.js";

export const METADATA_ACCEPT = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
export const METADATA_LIST_ACCEPT = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
const APPLY_CONTENT_TYPE = "application/apply-patch+yaml";
const MERGE_PATCH = "application/merge-patch+json";
const CRD_API = "apiextensions.k8s.io/v1";

function identity(object: KubeObject): {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | undefined;
} {
  const { apiVersion, kind } = object;
  const name = object.metadata?.name;
  if (typeof apiVersion !== "string" || typeof kind !== "string" || typeof name !== "string" || name === "") {
    throw new TypeError(
      `object needs apiVersion, kind and metadata.name (got ${JSON.stringify({ apiVersion, kind, name })})`,
    );
  }
  return { apiVersion, kind, name, namespace: object.metadata?.namespace };
}

/** Only the control fields that are set (exactOptionalPropertyTypes). */
function control(options: RequestControl): RequestControl {
  return {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
}

export interface KubeClientParts {
  readonly config: ConnectionConfig;
  readonly transport: Transport;
  readonly credentials: CredentialProvider;
  readonly logger: KubeLogger;
  readonly metrics: KubeMetrics;
}

export class KubeClient implements InformerSource {
  readonly discovery: Discovery;
  /** Shares one informer per resource type and selector between users. */
  readonly informers: InformerManager;
  readonly logger: KubeLogger;
  readonly metrics: KubeMetrics;
  private readonly transport: Transport;
  private readonly reachability: ServerReachability;

  /** Writes through this client also need this fence open (set only on views from withFence). */
  private fence: WriteFence | undefined;

  constructor(private readonly parts: KubeClientParts) {
    this.transport = parts.transport;
    this.reachability = new ServerReachability({ probe: () => this.probeReady() });
    this.transport.wakeRetriesWhen(
      (signal) => this.reachability.whenBack(signal),
      () => this.reachability.recoveredAt,
    );
    this.logger = parts.logger;
    this.metrics = parts.metrics;
    this.discovery = new Discovery(parts.transport);
    this.informers = new InformerManager(this);
  }

  /**
   * The same client (transport, rate limit, sockets, discovery, informers) whose writes also
   * need `fence` open: a shard's tenure fences the writes made for that shard's instances.
   * A view is cheap; never close() it (closing belongs to the client it came from).
   */
  withFence(fence: WriteFence): KubeClient {
    const view = Object.create(this) as KubeClient;
    view.fence = fence;
    return view;
  }

  get server(): string {
    return this.parts.config.server;
  }

  /** This client's API server and TLS trust with another's bearer token, none of this client's credentials (connection-config.ts). */
  connectionFor(token: string, namespace: string, source: string): ConnectionConfig {
    return bearerConnection(this.parts.config, token, namespace, source);
  }

  /** The kubeconfig context's namespace (or the service account's). */
  get defaultNamespace(): string {
    return this.parts.config.namespace;
  }

  /** How often an exec credential plugin ran (for tests and diagnostics). */
  get execCredentialRuns(): number {
    return this.parts.credentials.execRuns;
  }

  resourceFor(apiVersion: string, kind: string): Promise<ResourceInfo> {
    return this.discovery.resourceFor(apiVersion, kind);
  }

  async get<T extends KubeObject = KubeObject>(
    ref: ObjectRef,
    options: RequestControl & { metadataOnly?: boolean } = {},
  ): Promise<T> {
    const info = await this.resourceFor(ref.apiVersion, ref.kind);
    return this.json<T>({
      method: "GET",
      path: resourcePath(info, ref.namespace, ref.name),
      ...control(options),
      ...(options.metadataOnly === true ? { accept: METADATA_ACCEPT } : {}),
    });
  }

  /** GET of a non-resource path (`/version`, `/openapi/v3/...`), parsed as JSON. */
  getPath<T = unknown>(path: string): Promise<T> {
    return this.json<T>({ method: "GET", path, accept: "application/json" });
  }

  /** Lists every page; items get apiVersion and kind filled in (the server leaves them out). */
  async list<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    options: ListOptions = {},
  ): Promise<KubeList<T>> {
    const info = await this.resourceFor(apiVersion, kind);
    const items: T[] = [];
    let cont: string | undefined;
    // An empty PartialObjectMetadataList comes back with "items": null.
    type Page = Omit<KubeList<T>, "items"> & { items: T[] | null };
    let last: Page | undefined;
    do {
      const path =
        resourcePath(info, options.namespace) +
        query({
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          limit: options.limit ?? 500,
          continue: cont,
        });
      last = await this.json<Page>({
        method: "GET",
        path,
        ...(options.metadataOnly === true ? { accept: METADATA_LIST_ACCEPT } : {}),
      });
      for (const item of last.items ?? []) {
        if (options.metadataOnly !== true) {
          item.apiVersion ??= apiVersion;
          item.kind ??= kind;
        }
        items.push(item);
      }
      cont = last.metadata.continue;
    } while (cont !== undefined && cont !== "");
    const { continue: _continue, ...metadata } = last.metadata;
    return { ...last, metadata, items };
  }

  async create<T extends KubeObject>(object: T, options: WriteOptions = {}): Promise<T> {
    const id = identity(object);
    const info = await this.resourceFor(id.apiVersion, id.kind);
    const created = await this.json<T>({
      method: "POST",
      path: resourcePath(info, id.namespace) + this.writeQuery(options),
      body: JSON.stringify(object),
      ...control(options),
    });
    this.noteCrdChange(id.apiVersion, id.kind);
    return created;
  }

  /**
   * POST of a review (SubjectAccessReview, TokenReview, …): an answer computed by the server, not
   * stored, whose metadata must stay empty — no name, no field manager (the server would record
   * managedFields and then refuse the object).
   */
  async review<T extends KubeObject>(object: T): Promise<T> {
    if (typeof object.apiVersion !== "string" || typeof object.kind !== "string")
      throw new TypeError("a review needs apiVersion and kind");
    const info = await this.resourceFor(object.apiVersion, object.kind);
    return this.json<T>({ method: "POST", path: resourcePath(info, undefined), body: JSON.stringify(object) });
  }

  /** Server-side apply: the object is the full intent of fieldManager; returns the server's object. */
  async apply<T extends KubeObject>(object: T, options: ApplyOptions): Promise<T> {
    return this.applyTo(object, options, undefined);
  }

  /** Server-side apply to the status subresource. */
  async applyStatus<T extends KubeObject>(object: T, options: ApplyOptions): Promise<T> {
    return this.applyTo(object, options, "status");
  }

  private async applyTo<T extends KubeObject>(
    object: T,
    options: ApplyOptions,
    subresource: string | undefined,
  ): Promise<T> {
    const id = identity(object);
    const info = await this.resourceFor(id.apiVersion, id.kind);
    const path =
      resourcePath(info, id.namespace, id.name, subresource) +
      this.writeQuery(options, options.force === true ? { force: true } : {});
    // JSON is YAML: the apply body goes out exactly as given.
    const applied = await this.json<T>({
      method: "PATCH",
      path,
      body: JSON.stringify(object),
      contentType: APPLY_CONTENT_TYPE,
      ...control(options),
    });
    this.noteCrdChange(id.apiVersion, id.kind);
    return applied;
  }

  /** JSON merge patch (RFC 7386), optionally to a subresource such as "status". */
  async patch<T extends KubeObject = KubeObject>(
    ref: ObjectRef,
    patch: unknown,
    options: WriteOptions & { subresource?: string } = {},
  ): Promise<T> {
    const info = await this.resourceFor(ref.apiVersion, ref.kind);
    const path = resourcePath(info, ref.namespace, ref.name, options.subresource) + this.writeQuery(options);
    const patched = await this.json<T>({
      method: "PATCH",
      path,
      body: JSON.stringify(patch),
      contentType: MERGE_PATCH,
      ...control(options),
    });
    this.noteCrdChange(ref.apiVersion, ref.kind);
    return patched;
  }

  /** PUT (optimistic concurrency through metadata.resourceVersion), optionally to "status". */
  async replace<T extends KubeObject>(object: T, options: WriteOptions & { subresource?: string } = {}): Promise<T> {
    const id = identity(object);
    const info = await this.resourceFor(id.apiVersion, id.kind);
    const path = resourcePath(info, id.namespace, id.name, options.subresource) + this.writeQuery(options);
    const replaced = await this.json<T>({ method: "PUT", path, body: JSON.stringify(object), ...control(options) });
    this.noteCrdChange(id.apiVersion, id.kind);
    return replaced;
  }

  updateStatus<T extends KubeObject>(object: T, options: WriteOptions = {}): Promise<T> {
    return this.replace(object, { ...options, subresource: "status" });
  }

  /** Deletes; returns the server's answer (the object while finalizers run, or a Status). */
  async delete(ref: ObjectRef, options: DeleteOptions = {}): Promise<KubeObject> {
    const info = await this.resourceFor(ref.apiVersion, ref.kind);
    const body = {
      apiVersion: "v1",
      kind: "DeleteOptions",
      ...(options.propagationPolicy === undefined ? {} : { propagationPolicy: options.propagationPolicy }),
      ...(options.preconditions === undefined ? {} : { preconditions: options.preconditions }),
      ...(options.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: options.gracePeriodSeconds }),
      ...(options.dryRun === true ? { dryRun: ["All"] } : {}),
    };
    const deleted = await this.json<KubeObject>({
      method: "DELETE",
      path: resourcePath(info, ref.namespace, ref.name),
      body: JSON.stringify(body),
      ...control(options),
    });
    this.noteCrdChange(ref.apiVersion, ref.kind);
    return deleted;
  }

  /** Opens one raw watch stream (newline-delimited JSON events). Informers build on this. */
  async openWatch(apiVersion: string, kind: string, options: WatchOptions = {}): Promise<IncomingMessage> {
    const info = await this.resourceFor(apiVersion, kind);
    const path =
      resourcePath(info, options.namespace) +
      query({
        watch: 1,
        resourceVersion: options.resourceVersion,
        allowWatchBookmarks: options.allowWatchBookmarks ?? true,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        timeoutSeconds: options.timeoutSeconds,
      });
    return this.transport.stream({
      method: "GET",
      path,
      ...(options.metadataOnly === true ? { accept: METADATA_ACCEPT } : {}),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /** A new, unshared informer (call start()). Prefer informers.acquire() to share one. */
  informer<T extends KubeObject = KubeObject>(options: InformerOptions): Informer<T> {
    return new Informer<T>(this, options);
  }

  /**
   * Keeps discovery fresh while CRDs change under us (installed by others, or new versions):
   * a shared metadata-only CRD informer invalidates the cache on every change. Returns a stop.
   */
  trackCrdChanges(): () => Promise<void> {
    const lease = this.informers.acquire({ apiVersion: CRD_API, kind: "CustomResourceDefinition", metadataOnly: true });
    const invalidate = (): void => {
      if (lease.informer.hasSynced) this.discovery.invalidate();
    };
    const remove = lease.informer.addHandlers({ onAdd: invalidate, onUpdate: invalidate, onDelete: invalidate });
    return async () => {
      remove();
      await lease.release();
    };
  }

  /** Sockets open and requests waiting for one, per pool (ordinary requests, watches). */
  poolStats(): ReturnType<Transport["poolStats"]> {
    return this.transport.poolStats();
  }

  /** Resolves when the server answers again after an outage (see ServerReachability). */
  whenServerBack(signal: AbortSignal): Promise<void> {
    return this.reachability.whenBack(signal);
  }

  /** When the server last came back after an outage the probe saw (see ServerReachability). */
  serverRecoveredAt(): number | undefined {
    return this.reachability.recoveredAt;
  }

  private async probeReady(): Promise<boolean> {
    try {
      await this.transport.request({ method: "GET", path: "/readyz", retry: false, timeoutMs: 1_000 });
      return true;
    } catch (error) {
      // Any answer but "not ready" or "slow down" means the server is there (e.g. /readyz forbidden).
      return error instanceof ApiError && error.status < 500 && error.status !== 429;
    }
  }

  /** Stops shared informers and closes idle connections. */
  close(): void {
    this.reachability.close();
    this.informers.stopAll();
    this.transport.close();
  }

  private writeQuery(options: WriteOptions, extra: Record<string, boolean> = {}): string {
    return query({
      fieldManager: options.fieldManager,
      fieldValidation: options.fieldValidation,
      dryRun: options.dryRun === true ? "All" : undefined,
      ...extra,
    });
  }

  private async json<T>(req: Parameters<Transport["request"]>[0]): Promise<T> {
    try {
      const res = await this.transport.request(
        this.fence === undefined || req.method === "GET" ? req : { ...req, fence: this.fence },
      );
      return JSON.parse(res.body) as T;
    } catch (error) {
      // A 404 naming no object means the resource itself is gone (CRD removed): discovery is stale.
      if (error instanceof ApiError && error.status === 404 && error.details?.name === undefined)
        this.discovery.invalidate();
      throw error;
    }
  }

  private noteCrdChange(apiVersion: string, kind: string): void {
    if (apiVersion === CRD_API && kind === "CustomResourceDefinition") this.discovery.invalidate();
  }
}
