/** What startController takes and what it returns: the controller's whole public shape. */
import type {
  ChartRenderPoolOptions,
  EvaluationPoolOptions,
  EvaluationGuardOptions,
  TestCrash,
} from "./isolation/index.js";
import type { SchemaResolver } from "../graph/index.js";
import type { InformerOptions, KubeClient, KubeObject } from "../kube/index.js";
import type { ControllerMetrics, HealthReport, Logger } from "../observability/index.js";
import type { ControllerOptions, InstanceEvaluatedEvent, ServedGraphs } from "./context/index.js";
import type { ControllerSharding } from "./sharded-work.js";
import type { ConversionWebhookOptions } from "./conversion/index.js";
import type { Clock } from "./clock/index.js";
import type { RequestSignals } from "./loop/index.js";

export interface StartControllerOptions extends ControllerOptions {
  readonly client: KubeClient;
  /** A client of its own for Events, so they never take request budget from reconciles (default: client). */
  readonly eventClient?: KubeClient;
  readonly logger: Logger;
  readonly metrics?: ControllerMetrics;
  readonly kroVersion: string;
  /** Schemas of child kinds for type checking (built-ins of the cluster's version). */
  readonly resolver?: SchemaResolver;
  /** Only reconcile RGDs matching this label selector (shards controllers; tests share a cluster). */
  readonly rgdSelector?: string;
  /** Every instance is reconciled again this often even without events (default 10 h, as kro). */
  readonly resyncPeriodMs?: number;
  /** Install or upgrade the ResourceGraphDefinition and GraphRevision CRDs at startup (default true). */
  readonly installRgdCrd?: boolean;
  /** Called after each instance reconcile with the runtime's per-node evaluation (live progress). */
  readonly onInstanceEvaluated?: (event: InstanceEvaluatedEvent) => void;
  /**
   * Replicas share instances by shard; RGDs are reconciled by the leader (see sharded-work.ts).
   * With plain leader election, warmStandby(election): caches warm, work only while leading.
   */
  readonly sharding?: ControllerSharding;
  /**
   * Instances reconciled at once may grow from `workers` up to this while the API server is slow
   * and not overloaded (loop/concurrency-limit.ts); default `workers`: a fixed number, as kro.
   */
  readonly maxWorkers?: number;
  /** The client's answers and rate-limiter waits, which steer the limit above (fed by its metrics hooks). */
  readonly requestSignals?: RequestSignals;
  /** The chart-render worker pool (threads, heap, time limit). */
  readonly chartRenders?: ChartRenderPoolOptions;
  /** The evaluation pool (threads, heap) and the slice of the main thread a pass may take before it moves there (isolation/evaluation-route.ts). */
  readonly evaluations?: EvaluationPoolOptions & { readonly sliceMs?: number };
  /**
   * Where cluster registrations live (kubeconfig Secrets, docs/design/clusters.md): the controller's own
   * namespace. Absent: no resource may target another cluster.
   */
  readonly clusterNamespace?: string;
  /** Where the conversion webhook listens and how the API server reaches it (docs/design/api-versions.md); default loopback, a free port, certificates in memory. */
  readonly conversionWebhook?: Omit<ConversionWebhookOptions, "logger">;
  /** Storage migration pace: objects rewritten per second (default 20) and per list page (default 100). */
  readonly storageMigration?: { readonly qps?: number; readonly pageSize?: number };
  /**
   * The crash-loop guard (isolation/evaluation-guard.ts): after how many controller crashes during
   * one generation's evaluation an instance is no longer evaluated, and the retry backoff. Absent:
   * no instance is marked (in-process controllers of tests and `kro dev`, which a crash ends anyway).
   */
  readonly crashGuard?: Pick<EvaluationGuardOptions, "maxCrashes" | "retryBaseMs" | "processId" | "explain">;
  /** Time for the queues, the workers' durations and the cache re-selections (default: the system's). */
  readonly clock?: Clock;
  /** Test-only: the evaluation of instances of this name crashes or kills the process (see instance/evaluation-crash.ts). */
  readonly testCrashOn?: TestCrash;
}

export interface RunningController {
  /** Resolves once the RGD and CRD informers have synced. */
  readonly ready: Promise<void>;
  readonly served: ServedGraphs;
  /** Re-enqueues every instance of every served kind (a full resync, as after a restart). */
  resync(): void;
  /** Liveness for /healthz: every worker running, the RGD and CRD informers running and synced. */
  health(): HealthReport;
  /** The informers running now (kind, namespace, selectors): what the controller watches and caches. */
  watching(): InformerOptions[];
  /** The objects of a kind the controller caches now, across all its selections of that kind. */
  cachedObjects(apiVersion: string, kind: string): KubeObject[];
  stop(): Promise<void>;
}
