/**
 * What the reconcilers share: the client, the informers, the registry of served graphs, the
 * queues and the options. Built once by startController; passed in, never global.
 */
import type { AccessReviews } from "./access-reviews.js";
import type { ChartRenders, EvaluationGuard, EvaluationRoute, TestCrash } from "../isolation/index.js";
import type { InformerLease, InformerManager, KubeClient, KubeObject } from "../../kube/index.js";
import type { CompileResult } from "../../graph/index.js";
import type { Logger } from "../../observability/index.js";
import type { ChildWatches } from "../watches/index.js";
import type { ServedGraphs } from "./served-graphs.js";
import type { AuthorPolicyState } from "./author-policy-state.js";
import type { DelegationVerdicts } from "./delegation-verdicts.js";
import type { WorkQueue } from "../loop/index.js";
import type { ApplyMemo } from "./apply-memo.js";
import type { OwnWrites } from "./own-writes.js";
import type { InstanceMemory } from "./instance-memory.js";
import type { HelmClusterCache } from "../helm/index.js";
import type { InstanceEvaluation, KubeJson } from "../../runtime/index.js";
import type { ClusterConnections } from "../clusters/index.js";
import type { ConversionWebhook, StorageMigrations } from "../conversion/index.js";
import type { ShardScope } from "../coordination/index.js";

/**
 * With `--shards N`: each replica caches only its shards' instances and children (sharded-caches.ts,
 * docs/design/controller.md "Sharded caches").
 */
export interface CacheScoping {
  /** The shards held now and the label selector they imply. */
  readonly scope: ShardScope;
  /** An instance this replica's cache holds: a shard label naming the wrong shard is corrected. */
  seen(rgdName: string, object: KubeObject): void;
}

/** What one instance reconcile concluded (for live progress displays such as `kro dev`). */
export interface InstanceEvaluatedEvent {
  readonly rgdName: string;
  readonly instance: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly namespace: string | undefined;
    readonly name: string;
  };
  readonly evaluation: InstanceEvaluation;
  /** Apply/prune errors by node id. */
  readonly applyErrors: Readonly<Record<string, string>>;
  /** The status just written to the instance. */
  readonly status: KubeJson;
}

export interface ControllerOptions {
  /** Instance reconcile workers (kro's dynamic controller; default 4). */
  readonly workers?: number;
  /** Fallback requeue while an instance waits on data (events usually wake it sooner). Default 3000. */
  readonly requeueIntervalMs?: number;
  /** Delete an RGD's CRD (and so its instances) when the RGD is deleted. Default false, as kro. */
  readonly allowCrdDeletion?: boolean;
  /** Template dialect: add status storage to the user's CRD when it has none. Default true. */
  readonly addStatusToUserCrds?: boolean;
  readonly maxCollectionSize?: number;
  /** GraphRevisions kept per RGD, newest first (kro's --rgd-max-graph-revisions; 0 keeps all). Default 5. */
  readonly maxGraphRevisions?: number;
  /** Wall-clock limit of one instance evaluation pass (see docs/design/runtime.md). Default 2000. */
  readonly evaluationTimeoutMs?: number;
  /**
   * "Enforced" (default): instance authors are held to what they could do themselves (the
   * per-RGD admission policy). "Disabled": kro's exact model — every instance author is trusted
   * with the controller's rights; only for clusters where that is true (docs/design/authorization.md).
   */
  readonly authorCheck?: "Enforced" | "Disabled";
  /** How often an RGD's delegation is verified again against its recorded author's rights (default 300000: a revoked right counts within 5 minutes). */
  readonly delegationRecheckMs?: number;
  /** How long the write gate trusts a SubjectAccessReview answer for an instance's requester (default 30000: a revoked right stops writes within 30 s). */
  readonly accessReviewTtlMs?: number;
}

/** The policy watch's progress against instance writes (author-policy/policy-barrier.ts). */
export interface PolicySync {
  /** Taken when an instance write is seen. */
  ticket(): number;
  /**
   * Resolves once the policy informers reflect the cluster as of a moment after `ticket` was
   * taken, or at least as of `resourceVersion` (the newest write to judge).
   */
  caughtUp(ticket: number, resourceVersion?: string): Promise<void>;
}

export interface ControllerContext {
  readonly client: KubeClient;
  /** Events go through their own client (own rate limit), as client-go's recorder does. */
  readonly eventClient: KubeClient;
  readonly informers: InformerManager;
  readonly logger: Logger;
  readonly kroVersion: string;
  readonly served: ServedGraphs;
  /** The conversion webhook every replica serves (lazily started) for RGDs with several versions. */
  readonly conversion: ConversionWebhook;
  /** Storage migrations running in the background (leader only: the RGD reconcile starts them). */
  readonly migrations: StorageMigrations;
  readonly watches: ChildWatches;
  /** Registered clusters children may be placed in, one client each (docs/design/clusters.md). */
  readonly clusters: ClusterConnections;
  readonly rgdQueue: WorkQueue;
  readonly instanceQueue: WorkQueue;
  readonly applyMemo: ApplyMemo;
  /** The answers to our own writes whose watch events should queue nothing (own-writes.ts). */
  readonly ownWrites: OwnWrites;
  /** The informer of each served instance kind, by RGD name (with sharding: only the held shards' instances and strays). */
  readonly instanceLeases: Map<string, InformerLease<KubeObject>>;
  /** Everything remembered per instance between passes, and the one place that forgets it (instance-memory.ts). */
  readonly instanceMemory: InstanceMemory;
  /** Whether each RGD's author policy is in force (author-policy-state.ts). */
  readonly authorPolicies: AuthorPolicyState;
  readonly policySync: PolicySync;
  /** Each RGD's delegation: admitted under the kro-delegation policy? its author's reviewed rights (delegation-verdicts.ts). */
  readonly delegations: DelegationVerdicts;
  /** The write gate's SubjectAccessReviews for instance requesters (instance/write-gate.ts). */
  readonly accessReviews: AccessReviews;
  /**
   * Whether this replica may write cluster-wide objects of its own now (the kro-delegation policy):
   * always without sharding; with sharding only the RGD leader — the others only read.
   */
  mayWriteCluster(): boolean;
  readonly options: Required<ControllerOptions>;
  /** compileRgd with the built-in schemas plus the scope of this cluster's CRD kinds. */
  compile(rgd: unknown): Promise<CompileResult>;
  now(): string;
  /** The controller's own username, asked once (its writes to instances skip the author policy). */
  controllerUser(): Promise<string | undefined>;
  /** What charts (spec.helm) see of the cluster: version and discovery-based capabilities (helm-cluster.ts). */
  readonly helmCluster: HelmClusterCache;
  /** Where charts (spec.helm) render: worker threads the controller can stop (absent: inline, tests only). */
  readonly chartRenders?: ChartRenders;
  /** Where instance passes run: the main thread for a slice, the evaluation pool beyond it (absent: inline, tests only). */
  readonly evaluations?: EvaluationRoute;
  /** The crash-loop guard (isolation/evaluation-guard.ts); absent: evaluations are not recorded. */
  readonly evaluationGuard?: EvaluationGuard;
  /** Test-only: the evaluation of the instance of this name crashes or kills the process (KRO_TEST_CRASH_ON / KRO_TEST_KILL_ON, `kro controller` only). */
  readonly testCrashOn?: TestCrash;
  /** Present with `--shards`: caches hold only the held shards (instances, children). */
  readonly cacheScoping?: CacheScoping;
  /** Observer called after each instance reconcile that evaluated the graph. */
  readonly onInstanceEvaluated?: (event: InstanceEvaluatedEvent) => void;
}
