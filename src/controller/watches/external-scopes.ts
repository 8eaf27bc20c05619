/**
 * External references are watched in exactly the scope an instance names: one object by name
 * (`metadata.name=…` field selector in its namespace) or a collection by its label selector in
 * its namespace. So an RGD reading one Secret caches that Secret, not every Secret in the
 * cluster, and the controller needs list/watch only where the references point. Each scope is
 * reference-counted by the instances that read it and released when the last one stops (its
 * next reconcile reads something else, or it is deleted). An event on a scope wakes exactly
 * the instances holding it.
 */
import type { Informer, InformerLease, InformerManager, InformerOptions, KubeObject } from "../../kube/index.js";
import { informerKey } from "../../kube/index.js";
import type { CollectionQuery, ExternalRequest, ObjectIdentity } from "../../runtime/index.js";

const SYNC_TIMEOUT_MS = 30_000;

interface Scope {
  readonly lease: InformerLease<KubeObject>;
  readonly holders: Set<string>;
  readonly removeHandlers: () => void;
}

export interface ScopeOutcome {
  /** Node id → why its scope cannot be watched (RBAC, kind not served). */
  readonly errors: Map<string, string>;
  /** A scope was started for this call: what the instance read before may be incomplete. */
  readonly started: boolean;
}

/** The informer options that watch exactly what a request names. */
export function scopeOf(request: ObjectIdentity | CollectionQuery): InformerOptions {
  const namespace = request.namespace === undefined || request.namespace === "" ? {} : { namespace: request.namespace };
  if ("name" in request)
    return {
      apiVersion: request.apiVersion,
      kind: request.kind,
      ...namespace,
      fieldSelector: `metadata.name=${request.name}`,
    };
  const selector = labelSelectorText(request);
  return {
    apiVersion: request.apiVersion,
    kind: request.kind,
    ...namespace,
    ...(selector === "" ? {} : { labelSelector: selector }),
  };
}

/** A CollectionQuery's selector in the API server's label-selector syntax (sorted: one key per scope). */
export function labelSelectorText(query: Pick<CollectionQuery, "matchLabels" | "matchExpressions">): string {
  const parts = Object.entries(query.matchLabels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`);
  for (const e of query.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else parts.push(`!${e.key}`);
  }
  return parts.join(",");
}

export class ExternalScopes {
  private readonly scopes = new Map<string, Scope>();
  /** instance key → scope keys it holds. */
  private readonly byInstance = new Map<string, Set<string>>();
  /** apiVersion/kind → scopes running for it: most lookups are of managed kinds and stop here. */
  private readonly kinds = new Map<string, number>();

  constructor(
    private readonly informers: InformerManager,
    /** Undefined when the scope may be listed; else why not. */
    private readonly probe: (scope: InformerOptions) => Promise<string | undefined>,
    private readonly enqueue: (instanceKey: string) => void,
  ) {}

  get size(): number {
    return this.scopes.size;
  }

  /**
   * Makes `instanceKey` hold exactly the scopes of `requests` (starting and syncing new ones,
   * releasing the ones it no longer reads).
   */
  async hold(instanceKey: string, requests: readonly ExternalRequest[]): Promise<ScopeOutcome> {
    const errors = new Map<string, string>();
    const wanted = new Map<string, { options: InformerOptions; nodeIds: string[] }>();
    for (const { nodeId, request } of requests) {
      const options = scopeOf(request);
      const key = informerKey(options);
      const entry = wanted.get(key);
      if (entry === undefined) wanted.set(key, { options, nodeIds: [nodeId] });
      else entry.nodeIds.push(nodeId);
    }
    const held = this.byInstance.get(instanceKey) ?? new Set<string>();
    let started = false;
    const waits: Promise<void>[] = [];
    for (const [key, { options, nodeIds }] of wanted) {
      let scope = this.scopes.get(key);
      if (scope === undefined) {
        const reason = await this.probe(options);
        if (reason !== undefined) {
          for (const id of nodeIds)
            errors.set(id, `cannot watch ${describeScope(options)} for resource "${id}": ${reason}`);
          continue;
        }
        // Another reconcile may have started it while this one was probing.
        scope = this.scopes.get(key) ?? this.start(key, options);
        started = true;
      }
      scope.holders.add(instanceKey);
      held.add(key);
      if (!scope.lease.informer.hasSynced) waits.push(scope.lease.informer.waitForSync({ timeoutMs: SYNC_TIMEOUT_MS }));
    }
    for (const key of [...held]) {
      if (wanted.has(key)) continue;
      held.delete(key);
      this.drop(key, instanceKey);
    }
    if (held.size === 0) this.byInstance.delete(instanceKey);
    else this.byInstance.set(instanceKey, held);
    await Promise.all(waits);
    return { errors, started };
  }

  /** The instance reads no external any more (deleted). */
  forget(instanceKey: string): void {
    for (const key of this.byInstance.get(instanceKey) ?? []) this.drop(key, instanceKey);
    this.byInstance.delete(instanceKey);
  }

  /** The informer watching exactly this request's scope, when one runs. */
  informerFor(request: ObjectIdentity | CollectionQuery): Informer | undefined {
    if (!this.kinds.has(`${request.apiVersion}/${request.kind}`)) return undefined;
    return this.scopes.get(informerKey(scopeOf(request)))?.lease.informer;
  }

  async stop(): Promise<void> {
    const leases = [...this.scopes.values()].map((s) => s.lease);
    this.scopes.clear();
    this.kinds.clear();
    this.byInstance.clear();
    await Promise.all(leases.map((l) => l.release()));
  }

  private start(key: string, options: InformerOptions): Scope {
    const lease = this.informers.acquire(options);
    const holders = new Set<string>();
    const route = () => {
      for (const holder of holders) this.enqueue(holder);
    };
    const removeHandlers = lease.informer.addHandlers({ onAdd: route, onUpdate: route, onDelete: route });
    const scope: Scope = { lease, holders, removeHandlers };
    this.scopes.set(key, scope);
    const kind = `${options.apiVersion}/${options.kind}`;
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
    return scope;
  }

  private drop(key: string, instanceKey: string): void {
    const scope = this.scopes.get(key);
    if (scope === undefined) return;
    scope.holders.delete(instanceKey);
    if (scope.holders.size > 0) return;
    this.scopes.delete(key);
    const kind = `${scope.lease.informer.options.apiVersion}/${scope.lease.informer.options.kind}`;
    const left = (this.kinds.get(kind) ?? 1) - 1;
    if (left > 0) this.kinds.set(kind, left);
    else this.kinds.delete(kind);
    scope.removeHandlers();
    void scope.lease.release();
  }
}

function describeScope(o: InformerOptions): string {
  const where = o.namespace === undefined ? "" : ` in namespace ${o.namespace}`;
  const which = o.fieldSelector ?? (o.labelSelector === undefined ? "" : `labels ${o.labelSelector}`);
  return `${o.kind} (${o.apiVersion})${where}${which === "" ? "" : ` [${which}]`}`;
}
