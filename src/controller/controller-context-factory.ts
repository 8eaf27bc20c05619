/**
 * The parts of a controller and the context the reconcilers share, built once from the options.
 * Only construction: nothing here starts a watch, a loop or a timer.
 */
import { ChartRenderPool, ChartRenders, EvaluationGuard, EvaluationPool, EvaluationRoute } from "./isolation/index.js";
import { compileRgd } from "../graph/index.js";
import { createKroCelEnvironment } from "../expr/index.js";
import { InformerManager, stripManagedFields, type InformerLease, type KubeObject } from "../kube/index.js";
import { HelmClusterCache } from "./helm/index.js";
import {
  ApplyMemo,
  AuthorPolicyState,
  AccessReviews,
  DelegationVerdicts,
  InstanceMemory,
  instanceFlowOf,
  OwnWrites,
  ServedGraphs,
  type ControllerContext,
} from "./context/index.js";
import { DEFAULT_MAX_GRAPH_REVISIONS, withClusterKinds } from "./rgd/index.js";
import { ChildWatches, RemoteWatches } from "./watches/index.js";
import { ClusterRegistry } from "./clusters/index.js";
import { childOwnerRouter, DEFAULT_EVALUATION_TIMEOUT_MS } from "./instance/index.js";
import { WorkQueue } from "./loop/index.js";
import { PolicyBarrier, whoAmI } from "./author-policy/index.js";
import { ShardedCaches } from "./sharded-caches.js";
import { ConversionWebhook, StorageMigrations } from "./conversion/index.js";
import type { Clock } from "./clock/index.js";
import type { ControllerMetrics } from "../observability/index.js";
import type { StartControllerOptions } from "./controller-options.js";

/** What startController starts and stops beyond the context itself. */
export interface ControllerParts {
  readonly ctx: ControllerContext;
  readonly chartPool: ChartRenderPool;
  readonly evaluationPool: EvaluationPool;
  readonly policyBarrier: PolicyBarrier;
  readonly cacheScoping: ShardedCaches | undefined;
  /** The registry behind ctx.clusters, which the controller starts and stops. */
  readonly clusters: ClusterRegistry;
}

export function buildControllerParts(options: StartControllerOptions, clock: Clock): ControllerParts {
  const { client, logger } = options;
  // Nothing in the controller reads managedFields: caching them would roughly double memory.
  const informers = new InformerManager(client, { transform: stripManagedFields });
  const served = new ServedGraphs();
  const rgdQueue = new WorkQueue({ baseDelayMs: 200, maxDelayMs: 60_000, clock });
  const instanceQueue = instanceWorkQueue(clock, options.metrics);
  const env = createKroCelEnvironment({ enableRuntime: true });
  const instanceLeases = new Map<string, InformerLease<KubeObject>>();
  const ownWrites = new OwnWrites();
  const ownerOf = childOwnerRouter(served, (rgdName) => instanceLeases.get(rgdName)?.informer.store);
  let username: Promise<string | undefined> | undefined;
  const chartPool = new ChartRenderPool(options.chartRenders);
  const chartRenders = new ChartRenders(chartPool, Date.now, (key, answer) => {
    logger.warn(
      { render: key, limit: answer.limit, err: answer.ok ? undefined : answer.error },
      "chart render stopped by its limit",
    );
  });
  const { evaluationPool, evaluations } = evaluationsFor(options);
  const clusters = new ClusterRegistry(informers, options.clusterNamespace, logger, client.discovery);
  const evaluationGuard = options.crashGuard === undefined ? undefined : new EvaluationGuard(options.crashGuard);
  // Started only when an RGD with several versions needs it; every replica serves it.
  const conversion = new ConversionWebhook({
    ...options.conversionWebhook,
    logger,
    client: options.conversionWebhook?.client ?? client,
  });
  const migrations = new StorageMigrations(client, logger, {
    qps: options.storageMigration?.qps,
    pageSize: options.storageMigration?.pageSize,
  });
  const policyBarrier = new PolicyBarrier(client);
  const authorPolicies = new AuthorPolicyState();
  // With sharding, caches select the held shards only (sharded-caches.ts); it reads ctx once built.
  const cacheScoping =
    options.sharding === undefined || options.sharding.scopeCaches === false
      ? undefined
      : new ShardedCaches(() => ctx, options.sharding.shards, clock);
  // Children that are another RGD's instances carry their own shard, not their parent's: the
  // parent's watch of such a kind is not filtered (instance/runtime-options.ts).
  const shardTerm = (apiVersion: string, kind: string): string | undefined => {
    if (cacheScoping === undefined) return undefined;
    const servedKind =
      served.forKind(apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "", kind)?.instance.apiVersion ===
      apiVersion;
    return servedKind ? undefined : cacheScoping.scope.selector();
  };
  const watches = new ChildWatches(
    client,
    informers,
    ownerOf,
    (key) => {
      instanceQueue.add(key);
    },
    new RemoteWatches(clusters, ownerOf, (key) => {
      instanceQueue.add(key);
    }),
    shardTerm,
    env,
    ownWrites,
  );
  const instanceMemory = instanceMemoryOver({ watches, authorPolicies, evaluationGuard, evaluations });
  const ctx: ControllerContext = {
    conversion,
    migrations,
    client,
    eventClient: options.eventClient ?? client,
    informers,
    logger,
    kroVersion: options.kroVersion,
    served,
    watches,
    clusters,
    rgdQueue,
    instanceQueue,
    applyMemo: new ApplyMemo(),
    ownWrites,
    helmCluster: new HelmClusterCache(client),
    instanceLeases,
    instanceMemory,
    authorPolicies,
    policySync: policyBarrier,
    delegations: new DelegationVerdicts(options.delegationRecheckMs ?? 300_000),
    accessReviews: new AccessReviews(client, options.accessReviewTtlMs ?? 30_000, () => clock.now()),
    mayWriteCluster: () => options.sharding === undefined || options.sharding.leader.isLeader,
    options: {
      workers: options.workers ?? 4,
      requeueIntervalMs: options.requeueIntervalMs ?? 3000,
      allowCrdDeletion: options.allowCrdDeletion ?? false,
      addStatusToUserCrds: options.addStatusToUserCrds ?? true,
      maxCollectionSize: options.maxCollectionSize ?? 1000,
      maxGraphRevisions: options.maxGraphRevisions ?? DEFAULT_MAX_GRAPH_REVISIONS,
      evaluationTimeoutMs: options.evaluationTimeoutMs ?? DEFAULT_EVALUATION_TIMEOUT_MS,
      authorCheck: options.authorCheck ?? "Enforced",
      delegationRecheckMs: options.delegationRecheckMs ?? 300_000,
      accessReviewTtlMs: options.accessReviewTtlMs ?? 30_000,
    },
    compile: async (rgd) => {
      const resolver = await withClusterKinds(client, rgd, options.resolver);
      // With discovery at hand an unknown child kind is an error, as in kro (no REST mapping).
      return compileRgd(rgd, { env, unknownKinds: "error", ...(resolver === undefined ? {} : { resolver }) });
    },
    now: () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    controllerUser: () => (username ??= whoAmI(client)),
    ...(options.onInstanceEvaluated === undefined ? {} : { onInstanceEvaluated: options.onInstanceEvaluated }),
    ...(cacheScoping === undefined ? {} : { cacheScoping }),
    chartRenders,
    evaluations,
    ...(evaluationGuard === undefined ? {} : { evaluationGuard }),
    ...(options.testCrashOn === undefined ? {} : { testCrashOn: options.testCrashOn }),
  };
  return { ctx, chartPool, evaluationPool, policyBarrier, cacheScoping, clusters };
}

/** Passes past a slice of the main thread run in a pool of worker threads, taken in turn by namespace. */
function evaluationsFor(options: StartControllerOptions): {
  evaluationPool: EvaluationPool;
  evaluations: EvaluationRoute;
} {
  const evaluationPool = new EvaluationPool(options.evaluations);
  const evaluations = new EvaluationRoute(evaluationPool, {
    ...(options.evaluations?.sliceMs === undefined ? {} : { sliceMs: options.evaluations.sliceMs }),
    onPooled: (namespace, workMs) => {
      options.metrics?.namespacePooledWork.inc({ namespace }, workMs / 1000);
    },
  });
  return { evaluationPool, evaluations };
}

/** The instance memory, with every other holder of per-instance state forgetting along with it. */
export function instanceMemoryOver(holders: {
  readonly watches: Pick<ChildWatches, "forget">;
  readonly authorPolicies: Pick<AuthorPolicyState, "forgetInstance">;
  readonly evaluationGuard: Pick<EvaluationGuard, "forget"> | undefined;
  readonly evaluations?: Pick<EvaluationRoute, "forget">;
}): InstanceMemory {
  const memory = new InstanceMemory();
  const evaluations = holders.evaluations;
  if (evaluations !== undefined)
    memory.alsoHeldBy((key) => {
      evaluations.forget(key);
    });
  memory.alsoHeldBy((key) => {
    holders.watches.forget(key);
  });
  memory.alsoHeldBy((key) => {
    holders.authorPolicies.forgetInstance(key);
  });
  const guard = holders.evaluationGuard;
  if (guard !== undefined)
    memory.alsoHeldBy((key) => {
      guard.forget(key);
    });
  return memory;
}

/**
 * The instance queue: fair shares of the workers per namespace, then per RGD — a tenant's
 * expensive instances wait behind others' cheap ones, not the reverse (loop/fair-flows.ts).
 */
export function instanceWorkQueue(clock: Clock, metrics: ControllerMetrics | undefined): WorkQueue {
  return new WorkQueue({
    baseDelayMs: 200,
    maxDelayMs: 1_000_000,
    clock,
    flows: { depth: 2, of: instanceFlowOf },
    onWait: (_key, ms, [namespace = ""]) => {
      metrics?.namespaceQueueWait.observe({ namespace }, ms / 1000);
    },
  });
}
