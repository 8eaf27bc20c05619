/**
 * The state and object semantics of one fake API server, in memory:
 *  - one resourceVersion counter for the whole cluster, bumped by every write that changes
 *    something (a no-op write keeps the version and sends no event, as the real server);
 *  - `metadata.resourceVersion` (and `uid`) in a write body, or a delete's preconditions, must
 *    match the stored object: else 409 Conflict;
 *  - uid, creationTimestamp and generation set by the server; generation bumps when anything
 *    outside metadata and status changes; kinds with a status subresource keep status apart;
 *  - DELETE of an object with finalizers only sets deletionTimestamp; the write that removes its
 *    last finalizer removes it; no finalizer may be added while it is being deleted;
 *  - 404 NotFound, 409 AlreadyExists, watch events (ADDED/MODIFIED/DELETED) to every open watch;
 *  - a CustomResourceDefinition written here is Established at once and its kind served, with
 *    the defaults of its schema applied to every object of it written (structural defaulting).
 * Not modelled: namespaces as a precondition of creation, garbage collection by ownerReferences,
 * admission, validation, defaulting, field-level apply conflicts (see merge.ts), pagination.
 */
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import { ApiError, type KubeObject } from "../../../src/kube/index.js";
import { applySchemaDefaults } from "../../../src/runtime/index.js";
import type { CustomResourceDefinition } from "../../../src/schema/index.js";
import { apiVersionOf, KindRegistry, type FakeKind } from "./resources.js";
import { clone, dropReleased, isObject, mergeApplied, mergePatch, type Json } from "./merge.js";
import { WatchConnection, type WatchEventType } from "./watch-connection.js";
import { Faults, WRITE_VERBS, type RequestInfo } from "./faults.js";

interface Stored {
  object: KubeObject;
  /** Each apply manager's last applied object (for dropReleased). */
  readonly applied: Map<string, unknown>;
}

export interface WriteOptions {
  readonly subresource?: string | undefined;
  readonly fieldManager?: string | undefined;
}

/** A clock the test controls: every timestamp the fake sets comes from it. */
export class FakeClock {
  constructor(private ms = Date.parse("2025-01-01T00:00:00Z")) {}
  now(): string {
    return new Date(this.ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export class FakeCluster {
  readonly kinds = new KindRegistry();
  readonly faults = new Faults();
  /**
   * How SubjectAccessReviews are answered: given the review's spec, allowed or not. By default
   * everyone may do everything (the controller is one service account).
   */
  authorize: (spec: Record<string, unknown>) => boolean = () => true;
  /** Every request served through the client, in order. */
  readonly requests: RequestInfo[] = [];
  private revision = 0;
  private uids = 0;
  private readonly objects = new Map<string, Stored>();
  private readonly watches = new Set<WatchConnection>();
  /** Every change, for watches that start from an older resourceVersion (never compacted). */
  private readonly history: {
    revision: number;
    type: WatchEventType;
    before: KubeObject | undefined;
    after: KubeObject;
  }[] = [];
  private watchesHeld = false;
  /** The CRD behind each served custom kind ("group/plural"), for defaulting. */
  private readonly crds = new Map<string, KubeObject>();

  constructor(
    readonly name = "local",
    readonly clock = new FakeClock(),
  ) {}

  /** The write requests served so far (optionally of one kind only). */
  writes(kind?: string): RequestInfo[] {
    return this.requests.filter((r) => WRITE_VERBS.has(r.verb) && (kind === undefined || r.kind === kind));
  }

  get resourceVersion(): string {
    return String(this.revision);
  }

  kindOf(apiVersion: string, kind: string): FakeKind {
    const found = this.kinds.find(apiVersion, kind);
    if (found === undefined)
      throw statusError(404, "NotFound", `the server could not find the requested resource (${apiVersion} ${kind})`);
    return found;
  }

  // ---- reads ----------------------------------------------------------------------------------

  get(kind: FakeKind, namespace: string | undefined, name: string): KubeObject {
    const stored = this.objects.get(keyOf(kind, namespace, name));
    if (stored === undefined) throw notFound(kind, name);
    return clone(stored.object);
  }

  list(kind: FakeKind, namespace: string | undefined, selects: (o: KubeObject) => boolean): KubeObject[] {
    const prefix = `${kind.group}/${kind.plural}/`;
    return [...this.objects.entries()]
      .filter(
        ([key, s]) =>
          key.startsWith(prefix) &&
          (namespace === undefined || !kind.namespaced || s.object.metadata?.namespace === namespace) &&
          selects(s.object),
      )
      .map(([, s]) => clone(s.object));
  }

  /**
   * A watch of the changes after `since` (the resourceVersion the informer listed at): the
   * history after it is replayed first, so nothing written between the list and the watch is lost.
   */
  watch(
    kind: FakeKind,
    namespace: string | undefined,
    selects: (o: KubeObject) => boolean,
    metadataOnly: boolean,
    since: number,
  ): WatchConnection {
    const ofKind = (o: KubeObject) =>
      o.apiVersion === apiVersionOf(kind) &&
      o.kind === kind.kind &&
      (namespace === undefined || !kind.namespaced || o.metadata?.namespace === namespace) &&
      selects(o);
    const connection = new WatchConnection(ofKind, metadataOnly, () => {
      this.watches.delete(connection);
    });
    if (this.watchesHeld) connection.hold();
    for (const event of this.history)
      if (event.revision > since) connection.offer(event.type, event.before, clone(event.after));
    this.watches.add(connection);
    return connection;
  }

  /** Watch events queue instead of going out: every cache built on this cluster lags until release. */
  holdWatches(): void {
    this.watchesHeld = true;
    for (const w of this.watches) w.hold();
  }

  releaseWatches(): void {
    this.watchesHeld = false;
    for (const w of this.watches) w.release();
  }

  /** Ends every watch stream (the informers must be stopped first, or they reconnect). */
  closeWatches(): void {
    for (const w of this.watches) w.close();
    this.watches.clear();
  }

  // ---- writes ---------------------------------------------------------------------------------

  create(kind: FakeKind, namespace: string | undefined, body: KubeObject, options: WriteOptions = {}): KubeObject {
    const object = clone(body);
    const metadata = object.metadata ?? {};
    let name = metadata.name;
    if ((name === undefined || name === "") && metadata.generateName !== undefined)
      name = `${metadata.generateName}${(++this.uids).toString(36).padStart(5, "0")}`;
    if (name === undefined || name === "") throw statusError(422, "Invalid", "metadata.name: Required value");
    const ns = kind.namespaced ? (namespace ?? metadata.namespace ?? "default") : undefined;
    const key = keyOf(kind, ns, name);
    if (this.objects.has(key))
      throw statusError(409, "AlreadyExists", `${kind.plural} "${name}" already exists`, kind, name);
    const { resourceVersion: _rv, deletionTimestamp: _dt, uid: _uid, ...rest } = metadata;
    object.metadata = {
      ...rest,
      name,
      ...(ns === undefined ? {} : { namespace: ns }),
      uid: `uid-${this.name}-${++this.uids}`,
      generation: 1,
      creationTimestamp: this.clock.now(),
      managedFields: [managedEntry(options.fieldManager ?? "unknown", "Update", apiVersionOf(kind), this.clock.now())],
    };
    object.apiVersion = apiVersionOf(kind);
    object.kind = kind.kind;
    if (kind.status) delete object.status;
    const stored: Stored = { object: this.defaulted(kind, object), applied: new Map() };
    return this.commit(kind, key, undefined, stored, stored.object);
  }

  /** PUT: the whole object (or its status), preconditioned on the body's resourceVersion and uid. */
  update(kind: FakeKind, namespace: string | undefined, body: KubeObject, options: WriteOptions = {}): KubeObject {
    const name = body.metadata?.name ?? "";
    const stored = this.objects.get(keyOf(kind, namespace, name));
    if (stored === undefined) {
      // The API server checks a uid precondition before it finds the object gone.
      if (body.metadata?.uid !== undefined)
        throw statusError(
          409,
          "Conflict",
          `Precondition failed: UID in precondition: ${body.metadata.uid}, UID in object meta: `,
          kind,
          name,
        );
      throw notFound(kind, name);
    }
    checkPreconditions(kind, stored.object, body.metadata?.resourceVersion, body.metadata?.uid);
    const next = this.replaceFrom(kind, stored.object, body, options.subresource);
    return this.write(kind, stored, next, options.fieldManager, "Update", body);
  }

  /** JSON merge patch; `metadata.resourceVersion` in the patch is a precondition. */
  patch(
    kind: FakeKind,
    namespace: string | undefined,
    name: string,
    patch: Record<string, unknown>,
    options: WriteOptions = {},
  ): KubeObject {
    const stored = this.objects.get(keyOf(kind, namespace, name));
    if (stored === undefined) throw notFound(kind, name);
    const meta = isObject(patch.metadata) ? patch.metadata : {};
    checkPreconditions(
      kind,
      stored.object,
      typeof meta.resourceVersion === "string" ? meta.resourceVersion : undefined,
      typeof meta.uid === "string" ? meta.uid : undefined,
    );
    const { resourceVersion: _rv, ...metaPatch } = meta;
    const merged = mergePatch(stored.object, {
      ...patch,
      ...(isObject(patch.metadata) ? { metadata: metaPatch } : {}),
    }) as KubeObject;
    const next = this.replaceFrom(kind, stored.object, merged, options.subresource);
    return this.write(kind, stored, next, options.fieldManager, "Update", patch);
  }

  /** Server-side apply, simplified (merge.ts): creates when missing. */
  apply(
    kind: FakeKind,
    namespace: string | undefined,
    name: string,
    body: KubeObject,
    options: WriteOptions = {},
  ): KubeObject {
    const manager = options.fieldManager;
    if (manager === undefined || manager === "")
      throw statusError(422, "Invalid", "PATCH of type apply requires a fieldManager");
    const stored = this.objects.get(keyOf(kind, namespace, name));
    if (stored === undefined) {
      if (options.subresource !== undefined) throw notFound(kind, name);
      // A uid precondition names an object that must exist: the apply is refused, nothing is created.
      if (body.metadata?.uid !== undefined)
        throw statusError(
          409,
          "Conflict",
          `Precondition failed: UID in precondition: ${body.metadata.uid}, UID in object meta: `,
          kind,
          name,
        );
      const created = this.create(kind, namespace, body, options);
      const s = this.objects.get(keyOf(kind, created.metadata?.namespace, name));
      if (s !== undefined) {
        s.applied.set(manager, clone(body));
        s.object.metadata = {
          ...s.object.metadata,
          managedFields: [managedEntry(manager, "Apply", apiVersionOf(kind), this.clock.now())],
        };
      }
      return this.get(kind, created.metadata?.namespace, name);
    }
    checkPreconditions(kind, stored.object, body.metadata?.resourceVersion, body.metadata?.uid);
    const { resourceVersion: _rv, ...appliedMeta } = body.metadata ?? {};
    const merged = dropReleased(
      mergeApplied(stored.object, { ...body, metadata: appliedMeta }) as Record<string, Json>,
      stored.applied.get(manager),
      body,
    ) as KubeObject;
    stored.applied.set(manager, clone(body));
    const next = this.replaceFrom(kind, stored.object, merged, options.subresource);
    return this.write(kind, stored, next, manager, "Apply", body);
  }

  /** DELETE: with finalizers only marks the object; preconditions are uid and resourceVersion. */
  delete(
    kind: FakeKind,
    namespace: string | undefined,
    name: string,
    preconditions: { uid?: string; resourceVersion?: string } = {},
  ): KubeObject {
    const key = keyOf(kind, namespace, name);
    const stored = this.objects.get(key);
    if (stored === undefined) throw notFound(kind, name);
    checkPreconditions(kind, stored.object, preconditions.resourceVersion, preconditions.uid);
    const metadata = stored.object.metadata ?? {};
    if ((metadata.finalizers ?? []).length > 0) {
      if (metadata.deletionTimestamp !== undefined) return clone(stored.object);
      return this.commit(kind, key, stored.object, stored, {
        ...stored.object,
        metadata: { ...metadata, deletionTimestamp: this.clock.now(), deletionGracePeriodSeconds: 0 },
      });
    }
    return this.remove(kind, key, stored.object);
  }

  // ---- internals ------------------------------------------------------------------------------

  /** The object a PUT/patch/apply body makes of `current`: server fields kept, subresources apart. */
  private replaceFrom(
    kind: FakeKind,
    current: KubeObject,
    body: KubeObject,
    subresource: string | undefined,
  ): KubeObject {
    if (subresource === "status") return { ...clone(current), status: clone(body.status) };
    if (subresource !== undefined)
      throw statusError(404, "NotFound", `subresource ${subresource} is not served by the fake`);
    const metadata = body.metadata ?? {};
    const kept = current.metadata ?? {};
    const next: KubeObject = {
      ...clone(body),
      apiVersion: apiVersionOf(kind),
      kind: kind.kind,
      metadata: definedOnly({
        ...clone(metadata),
        name: kept.name,
        namespace: kept.namespace,
        uid: kept.uid,
        creationTimestamp: kept.creationTimestamp,
        generation: kept.generation,
        deletionTimestamp: kept.deletionTimestamp,
        deletionGracePeriodSeconds: kept.deletionGracePeriodSeconds,
        resourceVersion: kept.resourceVersion,
      }),
    };
    if (kind.status) next.status = clone(current.status);
    if (next.status === undefined) delete next.status;
    const defaulted = this.defaulted(kind, next);
    const added = (next.metadata?.finalizers ?? []).filter((f) => !(kept.finalizers ?? []).includes(f));
    if (kept.deletionTimestamp !== undefined && added.length > 0) {
      throw statusError(
        422,
        "Invalid",
        `metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        kind,
        kept.name,
      );
    }
    return defaulted;
  }

  private defaulted(kind: FakeKind, object: KubeObject): KubeObject {
    const crd = this.crds.get(`${kind.group}/${kind.plural}`);
    return crd === undefined ? object : applySchemaDefaults(crd as unknown as CustomResourceDefinition, object);
  }

  /** Bookkeeping of a write: managedFields, generation, then commit (or nothing when unchanged). */
  private write(
    kind: FakeKind,
    stored: Stored,
    next: KubeObject,
    manager: string | undefined,
    operation: "Update" | "Apply",
    body: KubeObject,
  ): KubeObject {
    const current = stored.object;
    const metadata: ObjectMeta = { ...next.metadata };
    const requested = body.metadata?.managedFields;
    if (requested !== undefined) {
      // A write may set managedFields itself; [{}] clears them.
      metadata.managedFields = requested.filter((f) => Object.keys(f).length > 0);
      for (const m of stored.applied.keys())
        if (!metadata.managedFields.some((f) => f.manager === m)) stored.applied.delete(m);
    } else {
      // Replaced in place: a repeated write by the same manager must not reorder (and so change) them.
      const entry = managedEntry(manager ?? "unknown", operation, apiVersionOf(kind), this.clock.now());
      const fields = [...(current.metadata?.managedFields ?? [])];
      const at = fields.findIndex((f) => f.manager === entry.manager && f.operation === operation);
      if (at >= 0) fields[at] = entry;
      else fields.push(entry);
      metadata.managedFields = fields;
    }
    next.metadata = sameJson(withoutMeta(current), withoutMeta(next))
      ? metadata
      : { ...metadata, generation: (current.metadata?.generation ?? 0) + 1 };
    if (sameJson(comparable(current), comparable(next))) return clone(current);
    const key = keyOf(kind, current.metadata?.namespace, current.metadata?.name ?? "");
    if (next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0)
      return this.remove(kind, key, next);
    return this.commit(kind, key, current, stored, next);
  }

  private commit(
    kind: FakeKind,
    key: string,
    before: KubeObject | undefined,
    stored: Stored,
    next: KubeObject,
  ): KubeObject {
    const object = clone(next);
    object.metadata = { ...object.metadata, resourceVersion: String(++this.revision) };
    stored.object = object;
    this.objects.set(key, stored);
    if (kind.group === "apiextensions.k8s.io" && kind.kind === "CustomResourceDefinition") this.establish(stored);
    this.notify(before === undefined ? "ADDED" : "MODIFIED", before, stored.object);
    return clone(stored.object);
  }

  private remove(_kind: FakeKind, key: string, last: KubeObject): KubeObject {
    const before = this.objects.get(key)?.object;
    this.objects.delete(key);
    const gone = { ...clone(last), metadata: { ...clone(last.metadata), resourceVersion: String(++this.revision) } };
    if (gone.kind === "CustomResourceDefinition") this.unserve(gone);
    this.notify("DELETED", before, gone);
    return clone(gone);
  }

  private notify(type: WatchEventType, before: KubeObject | undefined, after: KubeObject): void {
    this.history.push({ revision: this.revision, type, before, after: clone(after) });
    for (const w of this.watches) w.offer(type, before, clone(after));
  }

  /** What the apiextensions controller does at once here: Established, and the kind is served. */
  private establish(stored: Stored): void {
    const spec = stored.object.spec as
      | {
          group?: string;
          scope?: string;
          names?: { kind?: string; plural?: string };
          versions?: { name?: string; served?: boolean; subresources?: { status?: unknown } }[];
        }
      | undefined;
    const group = spec?.group ?? "";
    this.crds.set(`${group}/${spec?.names?.plural ?? ""}`, stored.object);
    for (const v of spec?.versions ?? []) {
      if (v.served === false || v.name === undefined) continue;
      this.kinds.add({
        group,
        version: v.name,
        kind: spec?.names?.kind ?? "",
        plural: spec?.names?.plural ?? "",
        namespaced: spec?.scope !== "Cluster",
        status: v.subresources?.status !== undefined,
      });
    }
    const status = (stored.object.status ?? {}) as { conditions?: unknown[]; storedVersions?: string[] };
    stored.object.status = {
      ...status,
      conditions: [
        { type: "NamesAccepted", status: "True", reason: "NoConflicts", lastTransitionTime: this.clock.now() },
        { type: "Established", status: "True", reason: "InitialNamesAccepted", lastTransitionTime: this.clock.now() },
      ],
      storedVersions:
        status.storedVersions ??
        (spec?.versions ?? []).filter((v) => (v as { storage?: boolean }).storage === true).map((v) => v.name ?? ""),
    };
  }

  private unserve(crd: KubeObject): void {
    const spec = crd.spec as { group?: string; names?: { plural?: string } } | undefined;
    this.kinds.remove(spec?.group ?? "", spec?.names?.plural ?? "");
    this.crds.delete(`${spec?.group ?? ""}/${spec?.names?.plural ?? ""}`);
  }
}

export function keyOf(kind: FakeKind, namespace: string | undefined, name: string): string {
  return `${kind.group}/${kind.plural}/${kind.namespaced ? (namespace ?? "default") : ""}/${name}`;
}

function checkPreconditions(
  kind: FakeKind,
  current: KubeObject,
  resourceVersion: string | undefined,
  uid: string | undefined,
): void {
  const name = current.metadata?.name ?? "";
  if (uid !== undefined && uid !== current.metadata?.uid) {
    throw statusError(
      409,
      "Conflict",
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata?.uid ?? ""}`,
      kind,
      name,
    );
  }
  if (resourceVersion !== undefined && resourceVersion !== current.metadata?.resourceVersion) {
    throw statusError(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${kind.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      kind,
      name,
    );
  }
}

function managedEntry(
  manager: string,
  operation: "Update" | "Apply",
  apiVersion: string,
  time: string,
): { manager: string; operation: string; apiVersion: string; time: string; fieldsType: string; fieldsV1: object } {
  return { manager, operation, apiVersion, time, fieldsType: "FieldsV1", fieldsV1: {} };
}

/** The object without the keys whose value is undefined (exactOptionalPropertyTypes). */
function definedOnly(object: Record<string, unknown>): ObjectMeta {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const withoutMeta = (o: KubeObject): unknown => ({ ...o, metadata: undefined, status: undefined });
/** What counts as a change: everything but the version and the managedFields' timestamps. */
const comparable = (o: KubeObject): unknown => ({
  ...o,
  metadata: {
    ...o.metadata,
    resourceVersion: undefined,
    managedFields: (o.metadata?.managedFields ?? []).map((f) => ({ ...f, time: undefined })),
  },
});

const notFound = (kind: FakeKind, name: string): ApiError =>
  statusError(
    404,
    "NotFound",
    `${kind.plural}${kind.group === "" ? "" : `.${kind.group}`} "${name}" not found`,
    kind,
    name,
  );

/** The error the real client raises for such an answer (the same Status body, the same class). */
export function statusError(code: number, reason: string, message: string, kind?: FakeKind, name?: string): ApiError {
  const details = kind === undefined ? undefined : { name, group: kind.group, kind: kind.plural };
  const body = JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason,
    code,
    message,
    ...(details === undefined ? {} : { details }),
  });
  return new ApiError({
    status: code,
    verb: "FAKE",
    path: kind === undefined ? "" : `${apiVersionOf(kind)}/${kind.plural}/${name ?? ""}`,
    body,
  });
}
