/**
 * The runtime's contract with its callers (the controller every reconcile, `kro render` offline).
 * Everything here is data: the runtime never performs I/O, never reads a clock, never mutates the
 * graph or its inputs. Observed cluster state arrives through the synchronous `ObservedLookup`
 * port (the controller backs it with informer caches and apply responses; `kro render` with the
 * `--observed` files and, under `--assume-ready`, with the desired objects themselves).
 */
import type { CompiledGraph, HelmContext } from "../graph/index.js";

/** Any Kubernetes object as raw JSON (the runtime never models objects; unknown fields survive). */
export type KubeJson = Record<string, unknown>;

/** Identity of one object: what prune and delete key on. `namespace` is absent for cluster-scoped kinds. */
export interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  /** The registered cluster the object lives in; absent: the controller's own cluster. */
  readonly cluster?: string;
}

/** Label-selected collection query (forEach items, externalRef collections). */
export interface CollectionQuery {
  readonly apiVersion: string;
  readonly kind: string;
  /** Absent = all namespaces. */
  readonly namespace?: string;
  /** Equality selector; an empty object selects everything. */
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    readonly values?: readonly string[];
  }[];
}

/** The port through which the runtime sees the cluster. Both calls are synchronous lookups. */
export interface ObservedLookup {
  /** The live object, or undefined when it does not exist (or is not known yet). */
  get(identity: ObjectIdentity): KubeJson | undefined;
  list(query: CollectionQuery): readonly KubeJson[];
}

/** kro's node states (reference §6.7). */
export const NODE_STATES = {
  inProgress: "IN_PROGRESS",
  skipped: "SKIPPED",
  error: "ERROR",
  synced: "SYNCED",
  deleting: "DELETING",
  deleted: "DELETED",
  waitingForReadiness: "WAITING_FOR_READINESS",
} as const;
export type NodeState = (typeof NODE_STATES)[keyof typeof NODE_STATES];

/** Why a node did not render this pass; `path`/`expression` name the missing data for humans. */
export interface PendingReason {
  /**
   * "dependency-not-ready" | "data-pending" | "not-found" (externals) | "readiness" (readyWhen false
   * or not observed yet) | "terminating" (the live object is being deleted: nothing may be applied).
   */
  readonly kind: "dependency-not-ready" | "data-pending" | "not-found" | "readiness" | "terminating";
  readonly message: string;
  /** Dependency ids this node waits on, when kind is dependency-not-ready. */
  readonly waitingOn?: readonly string[];
  readonly expression?: string;
  /** e.g. "service.status.loadBalancer.ingress" — the first missing field, when known. */
  readonly missingPath?: string;
  /**
   * Readiness that another reconcile of the controller writes (a nested instance's Ready
   * condition), not the cluster: the controller looks again after its safety-net interval too.
   */
  readonly nestedInstance?: true;
}

export interface NodeEvaluation {
  readonly id: string;
  readonly state: NodeState;
  /** Excluded by includeWhen/condition, directly or because a dependency was excluded. */
  readonly excluded: boolean;
  /** True when the node counts as ready for its dependents (excluded nodes count as ready). */
  readonly ready: boolean;
  /** Desired objects (decorated with kro's labels/annotations), empty unless rendered. Externals: none. */
  readonly desired: readonly KubeJson[];
  /** What the lookup returned for this node (one object for scalars, the items for collections). */
  readonly observed: readonly KubeJson[];
  readonly pending?: PendingReason;
  /** Objects the node keeps without applying them; prune leaves them alone (DialectEvaluator.retained). */
  readonly retained?: readonly ObjectIdentity[];
  /** A real error (type error, bad conversion, limit exceeded, duplicate identity): the pass must not apply. */
  readonly error?: string;
}

export interface PassDeadline {
  /** Milliseconds on the caller's clock. */
  readonly now: () => number;
  readonly budgetMs: number;
}

export interface RuntimeOptions {
  /** kro's `--rgd-max-collection-size` (default 1000). */
  readonly maxCollectionSize?: number;
  /** kro's `--rgd-max-collection-dimension-size` (default 10). */
  readonly maxCollectionDimensions?: number;
  /** Total CEL cost one evaluation pass may spend (default DEFAULT_PASS_COST_LIMIT); each expression also has its own limit. */
  readonly passCostLimit?: number;
  /** Value of the kro.run/kro-version label on children. */
  readonly kroVersion?: string;
  /** More labels on the managed children of a kind (the controller's shard label, kro.run/shard); kro's own labels win. */
  readonly childLabels?: (apiVersion: string, kind: string) => Readonly<Record<string, string>> | undefined;
  /**
   * Wall-clock limit of one evaluation pass, on a clock the caller passes in (the runtime keeps
   * no time). Checked between nodes and every few dozen CEL steps, so one hostile instance
   * cannot hold the event loop: its pass fails with an error instead.
   */
  readonly passDeadline?: PassDeadline;
  /**
   * `kro render --assume-ready`: every observed object counts as ready (readyWhen is not
   * evaluated), so authors can see the whole graph rendered without a cluster.
   */
  readonly assumeReady?: boolean;
  /**
   * True for a kind served by an RGD: such a child without readyWhen is ready only when its Ready
   * condition is True (nested instances; the controller passes its served kinds).
   */
  readonly awaitsReady?: (apiVersion: string, kind: string) => boolean;
  /**
   * Charts (spec.helm) rendered against a cluster: `.Capabilities` from its discovery and
   * `lookup` answered through the ObservedLookup port under the tenant rules (helm-cluster.ts).
   * Absent (`kro render`): spec.helm's offline capabilities and `lookup` = {}, as `helm template`.
   */
  readonly helm?: HelmClusterOptions;
}

/** What the controller knows of the cluster for chart rendering (template-dialect/helm-cluster.ts). */
export interface HelmClusterOptions {
  /** `.Capabilities` from the API server (/version and discovery); absent = spec.helm's values. */
  readonly capabilities?: HelmCapabilities;
  /** `lookup` reads the cluster under these rules; absent = every lookup returns {}. */
  readonly lookups?: HelmLookupAccess;
  /**
   * Where `lookup` reads; absent = the pass's own view of the cluster (the controller's caches and
   * writes). The migration plan passes the live cluster here while its children are simulated
   * applies: a lookup must see the Secret as it is live, not the render's own new copy of it.
   */
  readonly lookupFrom?: ObservedLookup;
  /** Where the chart renders; absent = here, inline, within the pass deadline (kro render). */
  readonly render?: ChartRenderPort;
}

/** One chart render for one instance, as the runtime would do it inline. */
export interface ChartRenderRequest {
  readonly helm: HelmContext;
  readonly instance: KubeJson;
  readonly capabilities?: HelmCapabilities;
  readonly lookup?: HelmRenderEnv["lookup"];
}

/** One chart template's output parsed: its documents, or why they are not valid YAML. */
export type ParsedTemplate =
  { readonly ok: true; readonly value: readonly KubeJson[] } | { readonly ok: false; readonly error: string };

/** A finished render: every template's output, or the error naming file, line and the limit hit. */
export type ChartRenderAnswer =
  | {
      readonly ok: true;
      readonly outputs: ReadonlyMap<string, string>;
      /** The outputs already parsed, by template (a worker parses them off the controller's thread). */
      readonly documents?: ReadonlyMap<string, ParsedTemplate>;
      readonly calls: readonly ChartLookupCall[];
    }
  | {
      readonly ok: false;
      readonly error: string;
      readonly calls: readonly ChartLookupCall[];
      /** The chart template whose render failed (not a helper it included), when known. */
      readonly failedTemplate?: string;
    };

/** A lookup a render made, with the fingerprint (answerFingerprint) of the answer it got. */
export interface ChartLookupCall {
  readonly args: readonly [string, string, string, string];
  readonly fingerprint: string;
}

/**
 * Renders charts somewhere the caller can stop and cap (the controller: a pool of worker
 * threads). Undefined: started, not finished — the pass treats the chart's children as pending,
 * and the caller evaluates again when the answer is in.
 */
export type ChartRenderPort = (request: ChartRenderRequest) => ChartRenderAnswer | undefined;

export interface HelmCapabilities {
  readonly kubeVersion: string;
  readonly apiVersions: readonly string[];
}

export interface HelmLookupAccess {
  /** The scope of a kind from discovery; undefined when the server does not serve it. */
  namespaced(apiVersion: string, kind: string): boolean | undefined;
  /** The RGD's containment opt-ins (kro.run/allow-cross-namespace, kro.run/allow-cluster-scoped). */
  readonly allowCrossNamespace: boolean;
  readonly allowClusterScoped: boolean;
}

/** One evaluation pass over every node, in topological order. */
export interface InstanceEvaluation {
  /** Topological order. */
  readonly nodes: readonly NodeEvaluation[];
  /** Every desired object of every rendered node, in apply order (wave, then topological order). */
  readonly apply: readonly KubeJson[];
  /**
   * Some node's desired objects are not known yet (dependency not ready, pending expression,
   * terminating live object): prune must not run. A node that is rendered but not ready yet does
   * not make the pass pending (its desired objects are known).
   */
  readonly pending: boolean;
  /** First real error, when any node failed: nothing should be applied. */
  readonly error?: string;
  /** Every object the graph reads or manages this pass (for the controller's watch routing). */
  readonly watches: readonly (ObjectIdentity | CollectionQuery)[];
  /** The external references among them, by node: the controller watches each in exactly this scope. */
  readonly externals: readonly ExternalRequest[];
}

/** What one external node read this pass: one object by name, or a label-selected collection. */
export interface ExternalRequest {
  readonly nodeId: string;
  readonly request: ObjectIdentity | CollectionQuery;
}

/** What the controller knows beyond the evaluation when it writes status. */
export interface StatusContext {
  /** Errors from server-side apply / prune, per node id. */
  readonly applyErrors?: Readonly<Record<string, string>>;
  readonly suspended?: boolean;
  readonly deleting?: boolean;
  /** RFC 3339; the runtime never reads the clock. */
  readonly now: string;
}

export interface InventoryEntry extends ObjectIdentity {
  readonly uid: string;
  readonly nodeId: string;
}

export type RuntimeGraph = CompiledGraph;

/** Default total CEL cost of one pass over an instance: 100 expressions at Kubernetes' per-call limit. */
export const DEFAULT_PASS_COST_LIMIT = 100_000_000;

/** What one pass's chart render may use of the cluster. */
export interface HelmRenderEnv {
  /** Cluster capabilities (one object while discovery is unchanged: renders are reused by identity). */
  readonly capabilities?: HelmCapabilities;
  /** Helm's lookup; throws when the tenant rules refuse the call. Absent: {} (offline). */
  readonly lookup?: (apiVersion: string, kind: string, namespace: string, name: string) => KubeJson;
  /** Where the chart renders (HelmClusterOptions.render); absent: inline. */
  readonly render?: ChartRenderPort;
}
