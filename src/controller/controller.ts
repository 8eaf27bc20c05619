/**
 * startController: the product's main job. Watches ResourceGraphDefinitions, turns each into a
 * served kind, and reconciles every instance of every kind through one shared work queue.
 * Optional leader election gates all writes; health and metrics are served by the caller.
 */
import { ChartRenderPool, ChartRenders, EvaluationGuard, type ChartRenderPoolOptions, type EvaluationGuardOptions, type TestCrash } from "./isolation/index.js";
import { KRO_API_VERSION, LABELS, labelMatches, RGD } from "../api/index.js";
import { compileRgd, containmentPolicyOf, delegates, type SchemaResolver } from "../graph/index.js";
import { createKroCelEnvironment } from "../expr/index.js";
import { InformerManager, isServerUnavailable, stripManagedFields, type InformerLease, type InformerOptions, type KubeClient, type KubeObject } from "../kube/index.js";
import type { ControllerMetrics, HealthReport, Logger } from "../observability/index.js";
import { HelmClusterCache } from "./helm/index.js";
import { onCrdChange } from "./rgd/index.js";
import { ApplyMemo, InstanceMemory, OwnWrites } from "./context/index.js";
import { CRD_TYPE } from "./crds/index.js";
import { controllerCrdsInstalled, installControllerCrds } from "./crds/index.js";
import { withClusterKinds } from "./rgd/index.js";
import { ChildWatches, RemoteWatches } from "./watches/index.js";
import { ClusterRegistry } from "./clusters/index.js";
import { DEFAULT_MAX_GRAPH_REVISIONS } from "./rgd/index.js";
import type { ControllerContext, ControllerOptions, InstanceEvaluatedEvent } from "./context/index.js";
import { enqueueInstances } from "./rgd/index.js";
import { reconcileInstance } from "./instance/index.js";
import { startReconcileLoop, type ReconcileOutcome } from "./loop/index.js";
import { childOwnerRouter } from "./instance/index.js";
import { reconcileRgd } from "./rgd/index.js";
import { DEFAULT_EVALUATION_TIMEOUT_MS } from "./instance/index.js";
import { AuthorPolicyState, DelegationVerdicts, delegationFingerprint, parseInstanceKey, ServedGraphs } from "./context/index.js";
import { WorkQueue } from "./loop/index.js";
import { DELEGATION_KEYS, delegationWriteKey, ensureDelegationPolicy, PolicyBarrier, watchAuthorPolicies, whoAmI } from "./author-policy/index.js";
import { jsonEqual } from "./context/index.js";
import { shardedWork, type ControllerSharding } from "./sharded-work.js";
import { ShardedCaches } from "./sharded-caches.js";
import { ConversionWebhook, StorageMigrations, type ConversionWebhookOptions } from "./conversion/index.js";
import { systemClock, type Clock } from "./clock/index.js";

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
  /** The chart-render worker pool (threads, heap, time limit). */
  readonly chartRenders?: ChartRenderPoolOptions;
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
  stop(): Promise<void>;
}


/** How often an instance whose RGD's author policy is not in force looks again. */
const POLICY_WAIT_MS = 1_000;

export function startController(options: StartControllerOptions): RunningController {
  const { client, logger } = options;
  // Nothing in the controller reads managedFields: caching them would roughly double memory.
  const informers = new InformerManager(client, { transform: stripManagedFields });
  const served = new ServedGraphs();
  const clock = options.clock ?? systemClock;
  const rgdQueue = new WorkQueue({ baseDelayMs: 200, maxDelayMs: 60_000, clock });
  const instanceQueue = new WorkQueue({ baseDelayMs: 200, maxDelayMs: 1_000_000, clock });
  const env = createKroCelEnvironment({ enableRuntime: true });
  const instanceLeases = new Map<string, InformerLease<KubeObject>>();
  const ownWrites = new OwnWrites();
  const ownerOf = childOwnerRouter(served, (rgdName) => instanceLeases.get(rgdName)?.informer.store);
  let username: Promise<string | undefined> | undefined;
  const chartPool = new ChartRenderPool(options.chartRenders);
  const chartRenders = new ChartRenders(chartPool, Date.now, (key, answer) => {
    logger.warn({ render: key, limit: answer.limit, err: answer.ok ? undefined : answer.error }, "chart render stopped by its limit");
  });
  const clusters = new ClusterRegistry(informers, options.clusterNamespace, logger, client.discovery);
  const evaluationGuard = options.crashGuard === undefined ? undefined : new EvaluationGuard(options.crashGuard);
  // Started only when an RGD with several versions needs it; every replica serves it.
  const conversion = new ConversionWebhook({ ...options.conversionWebhook, logger, client: options.conversionWebhook?.client ?? client });
  const migrations = new StorageMigrations(client, logger, { qps: options.storageMigration?.qps, pageSize: options.storageMigration?.pageSize });
  const policyBarrier = new PolicyBarrier(client);
  const authorPolicies = new AuthorPolicyState();
  // With sharding, caches select the held shards only (sharded-caches.ts); it reads ctx once built.
  const cacheScoping = options.sharding === undefined || options.sharding.scopeCaches === false ? undefined : new ShardedCaches(() => ctx, options.sharding.shards, clock);
  // Children that are another RGD's instances carry their own shard, not their parent's: the
  // parent's watch of such a kind is not filtered (instance/runtime-options.ts).
  const shardTerm = (apiVersion: string, kind: string): string | undefined => {
    if (cacheScoping === undefined) return undefined;
    const servedKind = served.forKind(apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "", kind)?.instance.apiVersion === apiVersion;
    return servedKind ? undefined : cacheScoping.scope.selector();
  };
  const watches = new ChildWatches(client, informers, ownerOf, (key) => { instanceQueue.add(key); }, new RemoteWatches(clusters, ownerOf, (key) => { instanceQueue.add(key); }), shardTerm, env, ownWrites);
  const instanceMemory = new InstanceMemory();
  instanceMemory.alsoHeldBy((key) => { watches.forget(key); });
  instanceMemory.alsoHeldBy((key) => { authorPolicies.forgetInstance(key); });
  if (evaluationGuard !== undefined) instanceMemory.alsoHeldBy((key) => { evaluationGuard.forget(key); });
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
    ...(evaluationGuard === undefined ? {} : { evaluationGuard }),
    ...(options.testCrashOn === undefined ? {} : { testCrashOn: options.testCrashOn }),
  };

  const record = (kind: string) => (key: string, outcome: ReconcileOutcome, durationMs: number) => {
    options.metrics?.reconcileTotal.inc({ kind, result: outcome.kind });
    options.metrics?.reconcileDuration.observe({ kind }, durationMs / 1000);
    options.metrics?.workDuration.observe({ queue: kind }, durationMs / 1000);
    if (outcome.kind !== "success") logger.warn({ kind, key, err: errorText(outcome.error), ...(outcome.kind === "error" ? { retryInMs: outcome.retryInMs } : {}) }, "reconcile failed");
    else logger.debug({ kind, key, durationMs: Math.round(durationMs) }, "reconciled");
  };
  // The RGD CRD first (an empty cluster works), then the informers that feed the RGD queue.
  async function watchRgds(): Promise<void> {
    if (options.installRgdCrd !== false) {
      const leader = options.sharding?.leader;
      await (leader === undefined ? installControllerCrds(client) : controllerCrdsInstalled(client, leader, stopping.signal, logger));
    }
    // Before any RGD is judged: whether delegations written so far passed it (delegation-policy.ts).
    await ensureDelegationPolicy(ctx);
    const rgdLease: InformerLease<KubeObject> = informers.acquire({ apiVersion: KRO_API_VERSION, kind: RGD.kind, ...(options.rgdSelector === undefined ? {} : { labelSelector: options.rgdSelector }) });
    // A delegation written now is judged (admitted under kro-delegation?) once the policy watch has caught up.
    const delegationWritten = (old: KubeObject | undefined, next: KubeObject) => {
      if (!rgdLease.informer.hasSynced || !delegates(containmentPolicyOf(next))) return;
      if (old !== undefined && delegationFingerprint(old, DELEGATION_KEYS) === delegationFingerprint(next, DELEGATION_KEYS)) return;
      ctx.authorPolicies.seen(delegationWriteKey(next.metadata?.name ?? ""), next.metadata?.resourceVersion, policyBarrier.ticket());
    };
    rgdLease.informer.addHandlers({
      onAdd: (o) => { delegationWritten(undefined, o); rgdQueue.add(o.metadata?.name ?? ""); },
      onUpdate: (old, next) => { delegationWritten(old, next); if (rgdChanged(old, next)) rgdQueue.add(next.metadata?.name ?? ""); },
      onDelete: (o) => { rgdQueue.add(o.metadata?.name ?? ""); },
    });
    const crdLease: InformerLease<KubeObject> = informers.acquire({ ...CRD_TYPE, metadataOnly: true });
    crdLease.informer.addHandlers({
      // A CRD we generated, edited or deleted by hand, is restored by its RGD's next reconcile;
      // a user CRD appearing lets a template-dialect RGD waiting for it become Active.
      onAdd: (crd) => { enqueueRgdsFor(crd); capabilitiesChanged(); },
      onUpdate: (_old, crd) => { enqueueRgdsFor(crd); capabilitiesChanged(); },
      onDelete: (crd) => { enqueueRgdsFor(crd); capabilitiesChanged(); },
    });
    // Charts reading .Capabilities follow the cluster's discovery (helm-cluster.ts).
    function capabilitiesChanged(): void {
      if (crdLease.informer.hasSynced) onCrdChange(ctx);
    }
    function enqueueRgdsFor(crd: KubeObject): void {
      // Only RGDs this controller watches (a selector may shard them between controllers).
      // The label holds the RGD's name, shortened when over 63 characters (api/label-value.ts).
      const owner = crd.metadata?.labels?.[LABELS.rgdName];
      if (owner !== undefined && rgdLease.informer.store.getByName(undefined, owner) !== undefined) rgdQueue.add(owner);
      else if (owner !== undefined) for (const rgd of rgdLease.informer.store.list()) if (labelMatches(owner, rgd.metadata?.name ?? "")) rgdQueue.add(rgd.metadata?.name ?? "");
      const [, ...groupParts] = (crd.metadata?.name ?? "").split(".");
      const group = groupParts.join(".");
      for (const rgd of rgdLease.informer.store.list()) {
        const resourceKind = (rgd.spec as { resourceKind?: { group?: string } } | undefined)?.resourceKind;
        if (resourceKind?.group === group) rgdQueue.add(rgd.metadata?.name ?? "");
      }
    }
    const policyLeases = watchAuthorPolicies(ctx);
    policyBarrier.attach(policyLeases.map((lease) => lease.informer));
    core.push(rgdLease, crdLease, ...policyLeases);
    resyncRgds = () => { for (const rgd of rgdLease.informer.store.list()) rgdQueue.add(rgd.metadata?.name ?? ""); };
    await Promise.all([rgdLease.informer.waitForSync({ timeoutMs: 60_000 }), crdLease.informer.waitForSync({ timeoutMs: 60_000 }), clusters.start()]);
  }

  const core: InformerLease<KubeObject>[] = [];
  const stopping = new AbortController();
  let resyncRgds = (): void => undefined;
  const ready = watchRgds();
  // Logged here too, so a caller that never awaits `ready` still sees why nothing happens.
  ready.catch((error: unknown) => { logger.error({ err: errorText(error) }, "controller could not start watching ResourceGraphDefinitions"); });
  const sharded = options.sharding === undefined ? undefined : shardedWork(ctx, options.sharding);
  cacheScoping?.start();
  // The leader reconciles RGDs in full; a replica that becomes leader goes over them all again.
  options.sharding?.leader.onAcquired(() => { void ready.then(() => { resyncRgds(); }, () => undefined); });
  // A new CA must reach every CRD's caBundle: the RGD reconcile installs it.
  conversion.onRotation(() => { resyncRgds(); });
  const rgdLoop = startReconcileLoop({ queue: rgdQueue, workers: 2, clock, isTransient: isServerUnavailable, reconcile: (name) => sharded?.rgd(name) ?? reconcileRgd(ctx, name), onOutcome: record("ResourceGraphDefinition") });
  const reconcileKey = async (c: ControllerContext, key: string) => {
    const { rgdName, namespace, name } = parseInstanceKey(key);
    const entry = served.get(rgdName);
    // Not served (yet, or any more): the RGD's next successful reconcile re-enqueues every instance.
    if (entry === undefined) return {};
    // Fail closed: while the RGD's author policy is not in force, nothing is done for its instances.
    if (!ctx.authorPolicies.standing(rgdName).inForce) return { requeueAfterMs: POLICY_WAIT_MS };
    const log = logger.child({ kind: entry.instance.kind, namespace, instance: name, reconcileId: (++reconcileCount).toString(36) });
    // The informers this reconcile uses are not released under it (RGD deleted or changed meanwhile).
    ctx.watches.begin(rgdName);
    try {
      return await reconcileInstance(c, entry, namespace, name, log);
    } finally {
      ctx.watches.end(rgdName);
    }
  };
  const instanceLoop = startReconcileLoop({
    queue: instanceQueue,
    workers: ctx.options.workers,
    clock,
    isTransient: isServerUnavailable,
    // With sharding, only while this replica holds the instance's shard, through its fence.
    reconcile: (key) => sharded?.instance(key, (c) => reconcileKey(c, key)) ?? reconcileKey(ctx, key),
    onOutcome: record("instance"),
  });
  let reconcileCount = 0;
  // The server is back after an outage: what failed because of it is retried now, not after the
  // backoff it grew meanwhile (up to 1,000 s). The workers and the client's rate limit pace it.
  void (async () => {
    for (;;) {
      await client.whenServerBack(stopping.signal);
      if (stopping.signal.aborted) return;
      const retried = { instances: instanceQueue.retryTransientNow(), rgds: rgdQueue.retryTransientNow() };
      logger.info(retried, "API server back: reconciles that failed because of it are retried now");
    }
  })();
  // Level-based safety net, as controller-runtime's SyncPeriod: every instance is looked at again.
  const resyncTimer = setInterval(() => { resync(); }, options.resyncPeriodMs ?? 36_000_000);
  resyncTimer.unref();
  // Delegations are verified again (a right revoked since is seen within the period).
  const delegationTimer = setInterval(() => { for (const name of ctx.delegations.delegating) rgdQueue.add(name); }, ctx.options.delegationRecheckMs);
  delegationTimer.unref();
  const depthTimer = setInterval(() => {
    options.metrics?.queueDepth.set({ queue: "rgd" }, rgdQueue.length);
    options.metrics?.queueDepth.set({ queue: "instance" }, instanceQueue.length);
    if (options.metrics !== undefined) {
      // Kinds no longer watched disappear from the gauge instead of keeping their last count.
      options.metrics.cachedObjects.reset();
      for (const c of cachedObjects()) options.metrics.cachedObjects.set({ api_version: c.apiVersion, kind: c.kind }, c.objects);
    }
  }, 1000);
  depthTimer.unref();

  /** Objects held in informer caches now, per kind (all selections of a kind added up). */
  function cachedObjects(): { apiVersion: string; kind: string; objects: number }[] {
    const byKind = new Map<string, { apiVersion: string; kind: string; objects: number }>();
    for (const { options: o, size } of informers.cached()) {
      const key = `${o.apiVersion}/${o.kind}`;
      const entry = byKind.get(key) ?? { apiVersion: o.apiVersion, kind: o.kind, objects: 0 };
      entry.objects += size;
      byKind.set(key, entry);
    }
    return [...byKind.values()];
  }

  function resync(): void {
    for (const entry of served.all()) enqueueInstances(ctx, entry.rgdName);
  }

  function health(): HealthReport {
    if (stopping.signal.aborted) return { ok: true, problems: [] };
    const problems: string[] = [];
    if (rgdLoop.alive < 2) problems.push(`RGD workers: ${rgdLoop.alive} of 2 running`);
    if (instanceLoop.alive < ctx.options.workers) problems.push(`instance workers: ${instanceLoop.alive} of ${ctx.options.workers} running`);
    for (const lease of core) {
      if (lease.informer.stopped) problems.push(`informer ${lease.informer.options.kind} stopped`);
    }
    return { ok: problems.length === 0, problems };
  }

  return {
    ready,
    served,
    resync,
    health,
    watching: () => informers.running(),
    async stop() {
      stopping.abort();
      cacheScoping?.stop();
      clearInterval(depthTimer);
      clearInterval(resyncTimer);
      clearInterval(delegationTimer);
      rgdQueue.shutDown();
      instanceQueue.shutDown();
      await Promise.all([rgdLoop.stopped, instanceLoop.stopped]);
      await ctx.watches.stop();
      await clusters.stop();
      await migrations.stop();
      informers.stopAll();
      await chartPool.stop();
      // Last: conversions are answered for as long as anything here runs, and the requests the
      // webhook took are answered before it goes (the API server's next ones reach another replica).
      await conversion.close();
    },
  };
}

function rgdChanged(old: KubeObject, next: KubeObject): boolean {
  const annotation = (o: KubeObject) => o.metadata?.annotations?.["kro.run/allow-breaking-changes"];
  return old.metadata?.generation !== next.metadata?.generation
    || (old.metadata?.deletionTimestamp === undefined) !== (next.metadata?.deletionTimestamp === undefined)
    || annotation(old) !== annotation(next)
    // Containment and author-check opt-ins are annotations: they change what instances may write.
    || !jsonEqual(containmentPolicyOf(old), containmentPolicyOf(next))
    // So are the delegation's recorded author (re-verified) and the stamps of a delegation.
    || delegationFingerprint(old, DELEGATION_KEYS) !== delegationFingerprint(next, DELEGATION_KEYS);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
