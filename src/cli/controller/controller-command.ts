import { hostname, totalmem } from "node:os";
import { getHeapStatistics } from "node:v8";
import type { Command } from "commander";
import {
  armCrashReports,
  DEFAULT_CRASH_REPORT_DIR,
  defaultRenderThreads,
  ensureCoordinationNamespace,
  fitThreadMemory,
  type ThreadMemory,
  RequestSignals,
  startController,
  startLeaderElection,
  validateLeaseTiming,
  warmStandby,
  type LeaseTiming,
  type RunningController,
  type TestCrash,
} from "../../controller/index.js";
import { DEFAULT_MAX_WORKERS, maxWorkersFlag } from "./worker-flags.js";
import {
  loadBuiltinSchemas,
  durationFlag,
  nonNegativeNumber,
  positiveInteger,
  positiveNumber,
} from "../inputs/index.js";
import { createKubeClient, WriteFence, type KubeClient, type KubeMetrics } from "../../kube/index.js";
import { DEFAULT_KUBE_MINOR, resolveKubeRelease } from "../../localcluster/index.js";
import {
  ControllerMetrics,
  createLogger,
  isLogLevel,
  startProbeServer,
  type LogLevel,
} from "../../observability/index.js";
import { untilSignal, youngGenerationMayGrow } from "../process/index.js";
import { conversionWebhookFlags } from "./conversion-webhook-flags.js";
import { defaultReplicaId, startSharding } from "./controller-sharding.js";
import { PACKAGE_VERSION } from "../version.js";
import { startUiFromFlags, validateUiFlags, type UiFlags } from "./controller-ui.js";

interface ControllerFlags extends UiFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly metricsBindAddress: string;
  readonly healthProbeBindAddress: string;
  readonly leaderElect?: boolean;
  readonly leaderElectionNamespace?: string;
  readonly leaderElectionId: string;
  readonly workers: string;
  readonly maxWorkers?: string;
  readonly clientQps: string;
  readonly clientBurst: string;
  readonly logLevel: string;
  readonly logFormat: string;
  readonly allowCrdDeletion?: boolean;
  readonly authorCheck: string;
  readonly instanceRequeueInterval: string;
  readonly kubeVersion: string;
  readonly resyncPeriod: string;
  readonly evaluationTimeout: string;
  readonly chartRenderTimeout: string;
  readonly chartRenderMemory: string;
  readonly rgdSelector?: string;
  readonly rgdMaxGraphRevisions: string;
  readonly leaderElectLeaseDuration: string;
  readonly leaderElectRenewDeadline: string;
  readonly leaderElectRetryPeriod: string;
  readonly requestTimeout: string;
  readonly shards: string;
  readonly replicaId?: string;
  readonly conversionWebhookBindAddress?: string;
  readonly conversionWebhookService?: string;
  readonly conversionWebhookAdvertiseAddress?: string;
  readonly conversionWebhookSecret?: string;
  readonly clusterNamespace?: string;
  readonly storageMigrationQps: string;
  readonly storageMigrationPageSize: string;
  readonly evaluationCrashLimit: string;
  readonly evaluationCrashBackoff: string;
  readonly crashReportDir: string;
}

export function registerControllerCommand(program: Command): void {
  program
    .command("controller")
    .description("run the controller: every ResourceGraphDefinition becomes an API, every instance converges")
    .option("--kubeconfig <file>", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
    .option("--context <name>", "kubeconfig context")
    .option("--metrics-bind-address <addr>", "Prometheus /metrics address (0 disables)", ":8078")
    .option("--health-probe-bind-address <addr>", "/healthz and /readyz address (0 disables)", ":8079")
    .option(
      "--ui-bind-address <addr>",
      "the read-only web view, for users signing in with their own Kubernetes token (host:port or :port; 0 disables)",
      "0",
    )
    .option(
      "--ui-tls-cert-file <file>",
      "serve the web view over HTTPS with this PEM certificate (re-read every minute)",
    )
    .option("--ui-tls-key-file <file>", "the PEM key of --ui-tls-cert-file")
    .option("--leader-elect", "elect a leader through a Lease so only one replica writes")
    .option("--leader-election-namespace <ns>", "namespace of the Lease (default: $POD_NAMESPACE or kro-system)")
    .option("--leader-election-id <name>", "name of the Lease", "controller.kro.run")
    .option("--workers <n>", "concurrent instance reconciles at start, and the fewest ever", "4")
    .option(
      "--max-workers <n>",
      `the most concurrent instance reconciles: more run while the API server is slow but not overloaded (429, 5xx) and the client's rate limit is not what holds the work (default: the larger of ${DEFAULT_MAX_WORKERS} and --workers; equal to --workers: a fixed number)`,
    )
    .option("--client-qps <n>", "client-side request rate limit (0 = off)", "100")
    .option("--client-burst <n>", "client-side burst", "150")
    .option("--log-level <level>", "fatal|error|warn|info|debug|trace", "info")
    .option("--log-format <format>", "json|text", "json")
    .option("--allow-crd-deletion", "delete an RGD's CRD (and all its instances) when the RGD is deleted")
    .option(
      "--author-check <mode>",
      "Enforced: instance authors may cause only what they could do themselves (admission policy per RGD); Disabled: kro's model, every instance author trusted with the controller's rights — unsafe on shared clusters",
      "Enforced",
    )
    .option(
      "--instance-requeue-interval <duration>",
      "safety-net requeue while an instance waits on data or on a nested instance's readiness (e.g. 3s, 0 = off)",
      "3s",
    )
    .option(
      "--rgd-selector <selector>",
      "only reconcile RGDs matching this label selector (shard RGDs across controllers)",
    )
    .option(
      "--rgd-max-graph-revisions <n>",
      "GraphRevisions kept per RGD, newest first; the served one is always kept (0 keeps all)",
      "5",
    )
    .option("--resync-period <duration>", "reconcile every instance again this often, events or not", "10h")
    .option(
      "--evaluation-timeout <duration>",
      "limit of one instance evaluation pass, in the evaluating thread's CPU time (0 = off)",
      "2s",
    )
    .option(
      "--chart-render-timeout <duration>",
      "limit of one chart (spec.helm) render, in its worker thread's CPU time",
      "10s",
    )
    .option("--chart-render-memory <MiB>", "heap limit of each chart-render worker thread, MiB", "256")
    .option("--kube-version <minor>", "built-in schemas used to type-check child templates", DEFAULT_KUBE_MINOR)
    .option(
      "--leader-elect-lease-duration <duration>",
      "how long a standby waits, after it last saw the Lease renewed, before taking over",
      "15s",
    )
    .option(
      "--leader-elect-renew-deadline <duration>",
      "how long the leader keeps trying to renew before it stops writing (< lease duration)",
      "10s",
    )
    .option("--leader-elect-retry-period <duration>", "time between attempts to acquire or renew the Lease", "2s")
    .option("--request-timeout <duration>", "deadline of each API request, queueing and retries included", "60s")
    .option(
      "--shards <n>",
      "share instances between replicas over N shards held through Leases (0 = off; implies --leader-elect for RGDs)",
      "0",
    )
    .option(
      "--conversion-webhook-bind-address <host:port>",
      "where the conversion webhook (RGDs with several API versions) listens",
      "127.0.0.1:0",
    )
    .option(
      "--conversion-webhook-advertise-address <host:port>",
      "where the API server dials the webhook when not the bind address: a load balancer in front of every replica, outside a cluster (give every replica the same one, and --conversion-webhook-secret)",
    )
    .option(
      "--conversion-webhook-service <namespace/name[:port]>",
      "in a cluster: the Service in front of every replica's webhook (default: the API server dials the bind address)",
    )
    .option(
      "--conversion-webhook-secret <namespace/name>",
      "keep the webhook's CA and certificate in this Secret so every replica serves the same ones",
    )
    .option(
      "--storage-migration-qps <n>",
      "objects a storage migration rewrites per second (when an RGD's storage version changes)",
      "20",
    )
    .option(
      "--storage-migration-page-size <n>",
      "objects a storage migration lists per page; its progress is saved after each page",
      "100",
    )
    .option(
      "--cluster-namespace <ns>",
      "read cluster registrations (kubeconfig Secrets, docs/design/clusters.md) from this namespace; without it no resource may target another cluster",
    )
    .option(
      "--evaluation-crash-limit <n>",
      "controller crashes during one instance generation's evaluation after which it is no longer evaluated (EvaluationCrashed) until its spec changes; counted on the instance, and only crashes that left a report in --crash-report-dir (out of memory, a fatal or uncaught error) — a kill (kill -9, a drain, the kernel's OOM killer) is never blamed on what was in flight (0 = off)",
      "3",
    )
    .option(
      "--crash-report-dir <dir>",
      "where the controller's fatal-error reports go, to tell a crash from a kill after a restart; must outlive the process (in the image: /tmp, an emptyDir)",
      DEFAULT_CRASH_REPORT_DIR,
    )
    .option(
      "--evaluation-crash-backoff <duration>",
      "after a crash, a suspect instance is evaluated again (alone) this long after the start, doubled per crash",
      "2s",
    )
    .option("--replica-id <id>", "this replica's identity in the Leases (default: hostname plus a random suffix)")
    .action(async (flags: ControllerFlags) => {
      await runController(flags);
    });
}

/** Every flag checked before anything starts: a bad value is a clear error, never a hot loop. */
function parseFlags(flags: ControllerFlags): ControllerSettings {
  const logLevel = flags.logLevel;
  if (!isLogLevel(logLevel)) throw new Error(`--log-level: unknown level "${logLevel}"`);
  const logFormat = flags.logFormat === "json" || flags.logFormat === "text" ? flags.logFormat : undefined;
  if (logFormat === undefined) throw new Error(`--log-format must be json or text, got "${flags.logFormat}"`);
  const lease = {
    leaseDurationMs: durationFlag("--leader-elect-lease-duration", flags.leaderElectLeaseDuration),
    renewDeadlineMs: durationFlag("--leader-elect-renew-deadline", flags.leaderElectRenewDeadline),
    retryPeriodMs: durationFlag("--leader-elect-retry-period", flags.leaderElectRetryPeriod),
  };
  const shards = Math.floor(nonNegativeNumber("--shards", flags.shards));
  if (shards > 1024) throw new Error(`--shards must be at most 1024, got ${shards}`);
  if (flags.leaderElect === true || shards > 0) validateLeaseTiming(lease);
  validateUiFlags(flags);
  const authorCheck = AUTHOR_CHECK_MODES.find((m) => m.toLowerCase() === flags.authorCheck.trim().toLowerCase());
  if (authorCheck === undefined)
    throw new Error(`--author-check must be Enforced or Disabled, got ${JSON.stringify(flags.authorCheck)}`);
  return {
    authorCheck,
    logLevel,
    logFormat,
    qps: nonNegativeNumber("--client-qps", flags.clientQps),
    burst: nonNegativeNumber("--client-burst", flags.clientBurst),
    workers: positiveInteger("--workers", flags.workers),
    maxWorkers: maxWorkersFlag(flags),
    requeueIntervalMs: durationFlag("--instance-requeue-interval", flags.instanceRequeueInterval, { allowZero: true }),
    resyncPeriodMs: durationFlag("--resync-period", flags.resyncPeriod),
    requestTimeoutMs: durationFlag("--request-timeout", flags.requestTimeout),
    evaluationTimeoutMs: durationFlag("--evaluation-timeout", flags.evaluationTimeout, { allowZero: true }),
    chartRenderTimeoutMs: durationFlag("--chart-render-timeout", flags.chartRenderTimeout),
    chartRenderHeapMb: positiveInteger("--chart-render-memory", flags.chartRenderMemory),
    maxGraphRevisions: Math.floor(nonNegativeNumber("--rgd-max-graph-revisions", flags.rgdMaxGraphRevisions)),
    storageMigration: {
      qps: positiveNumber("--storage-migration-qps", flags.storageMigrationQps),
      pageSize: positiveInteger("--storage-migration-page-size", flags.storageMigrationPageSize),
    },
    kubeMinor: resolveKubeRelease(flags.kubeVersion).minor,
    evaluationCrashLimit: Math.floor(nonNegativeNumber("--evaluation-crash-limit", flags.evaluationCrashLimit)),
    evaluationCrashBackoffMs: durationFlag("--evaluation-crash-backoff", flags.evaluationCrashBackoff),
    lease,
    shards,
  };
}

const AUTHOR_CHECK_MODES = ["Enforced", "Disabled"] as const;

interface ControllerSettings {
  readonly authorCheck: (typeof AUTHOR_CHECK_MODES)[number];
  readonly logLevel: LogLevel;
  readonly logFormat: "json" | "text";
  readonly qps: number;
  readonly burst: number;
  readonly workers: number;
  readonly maxWorkers: number;
  readonly requeueIntervalMs: number;
  readonly resyncPeriodMs: number;
  readonly requestTimeoutMs: number;
  readonly evaluationTimeoutMs: number;
  readonly chartRenderTimeoutMs: number;
  readonly chartRenderHeapMb: number;
  readonly maxGraphRevisions: number;
  readonly storageMigration: { readonly qps: number; readonly pageSize: number };
  readonly kubeMinor: string;
  readonly evaluationCrashLimit: number;
  readonly evaluationCrashBackoffMs: number;
  readonly lease: LeaseTiming;
  readonly shards: number;
}

async function runController(flags: ControllerFlags): Promise<void> {
  const settings = parseFlags(flags);
  const logger = createLogger({ level: settings.logLevel, format: settings.logFormat, name: "kro-controller" });
  const metrics = new ControllerMetrics({ processMetrics: true });
  // One identity per process: it names the replica in Leases and, through the User-Agent, in the API server's audit log.
  const identity = flags.replicaId ?? (settings.shards > 0 ? defaultReplicaId() : `${hostname()}_${process.pid}`);
  const connection = {
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    env: process.env,
    logger,
    userAgent: `kro-ts/${PACKAGE_VERSION} (${identity})`,
  } as const;
  // With leader election every client that writes for the leader goes through its fence.
  // With --shards, instance writes are fenced per shard and RGD writes by the leader (controller-sharding.ts).
  const fence = flags.leaderElect === true && settings.shards === 0 ? new WriteFence() : undefined;
  const withFence = fence === undefined ? {} : { fence };
  const requestSignals = new RequestSignals(settings.qps);
  const client = await createKubeClient({
    ...connection,
    ...withFence,
    qps: settings.qps,
    burst: settings.burst,
    requestTimeoutMs: settings.requestTimeoutMs,
    metrics: kubeMetricsFor(metrics, requestSignals),
  });
  const leaseNamespace = flags.leaderElectionNamespace ?? process.env.POD_NAMESPACE ?? "kro-system";
  // Leases need their namespace: made sure of (created when missing) before any campaign, or the start fails naming it.
  if (flags.leaderElect === true || settings.shards > 0) {
    // Its own client: the controller's writes are fenced until it is elected, and this comes first.
    const setupClient = await createKubeClient({
      ...connection,
      qps: 5,
      burst: 10,
      requestTimeoutMs: settings.requestTimeoutMs,
    });
    const missing = await ensureCoordinationNamespace(
      setupClient,
      leaseNamespace,
      settings.shards > 0 ? "--shards" : "--leader-elect",
      logger,
    ).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    setupClient.close();
    if (missing !== undefined) {
      logger.error({ err: missing.message }, "controller failed to start");
      client.close();
      process.exitCode = 1;
      return;
    }
  }
  // Events get a client (and rate limit) of their own, as client-go's event recorder does.
  const eventClient = await createKubeClient({
    ...connection,
    ...withFence,
    qps: 20,
    burst: 50,
    requestTimeoutMs: settings.requestTimeoutMs,
  });
  // The Lease too: its renewals never queue behind the controller's requests or sockets, and
  // retries are the election's own (every retry period, within the renew deadline).
  const electionClient =
    fence === undefined
      ? undefined
      : await createKubeClient({
          ...connection,
          qps: 5,
          burst: 10,
          maxRetries: 0,
          requestTimeoutMs: settings.lease.renewDeadlineMs,
        });
  const webhookClient =
    fence === undefined
      ? client
      : await createKubeClient({ ...connection, qps: 5, burst: 10, requestTimeoutMs: settings.requestTimeoutMs });
  const threadMemory = threadMemoryWithin(settings.chartRenderHeapMb);
  if (threadMemory.note !== undefined)
    logger.info({ render: threadMemory.render, evaluation: threadMemory.evaluation }, threadMemory.note);
  // Before any evaluation: a fatal error from here on leaves the report that tells a crash from a kill.
  const crashReports = settings.evaluationCrashLimit === 0 ? undefined : armCrashReports(flags.crashReportDir);
  if (crashReports?.problem !== undefined)
    logger.warn(
      { problem: crashReports.problem },
      "the crash-loop guard cannot tell crashes from kills: no instance will be stopped by --evaluation-crash-limit",
    );
  const resolver = await loadBuiltinSchemas(settings.kubeMinor);
  let running: RunningController | undefined;
  let ui: Awaited<ReturnType<typeof startUiFromFlags>>;
  let uiClient: KubeClient | undefined;
  let synced = false;
  const probes = await startProbeServer({
    address: flags.healthProbeBindAddress,
    ready: () => synced,
    healthy: () => running?.health() ?? { ok: true, problems: [] },
  });
  const metricsServer = await startProbeServer({ address: flags.metricsBindAddress, registry: metrics.registry });
  const shared =
    settings.shards === 0
      ? undefined
      : await startSharding(
          {
            shards: settings.shards,
            replicaId: identity,
            namespace: leaseNamespace,
            leaseName: flags.leaderElectionId,
            lease: settings.lease,
          },
          connection,
          logger,
        );
  const election =
    electionClient === undefined || fence === undefined
      ? undefined
      : startLeaderElection({
          client: electionClient,
          logger,
          fence,
          ...settings.lease,
          namespace: leaseNamespace,
          name: flags.leaderElectionId,
          identity,
        });
  const start = async (): Promise<void> => {
    running = startController({
      client,
      eventClient,
      logger,
      metrics,
      resolver,
      kroVersion: PACKAGE_VERSION,
      workers: settings.workers,
      maxWorkers: settings.maxWorkers,
      requestSignals,
      allowCrdDeletion: flags.allowCrdDeletion === true,
      authorCheck: settings.authorCheck,
      requeueIntervalMs: settings.requeueIntervalMs,
      resyncPeriodMs: settings.resyncPeriodMs,
      evaluationTimeoutMs: settings.evaluationTimeoutMs,
      chartRenders: { timeoutMs: settings.chartRenderTimeoutMs, ...threadMemory.render },
      evaluations: threadMemory.evaluation,
      maxGraphRevisions: settings.maxGraphRevisions,
      storageMigration: settings.storageMigration,
      ...(crashReports === undefined
        ? {}
        : {
            crashGuard: {
              maxCrashes: settings.evaluationCrashLimit,
              retryBaseMs: settings.evaluationCrashBackoffMs,
              processId: crashReports.processId,
              explain: (id: string) => crashReports.explain(id),
            },
          }),
      ...testCrashFromEnvironment(),
      ...(flags.rgdSelector === undefined ? {} : { rgdSelector: flags.rgdSelector }),
      ...(flags.clusterNamespace === undefined ? {} : { clusterNamespace: flags.clusterNamespace }),
      // Every replica serves conversions, so the webhook's client is not fenced by the election.
      conversionWebhook: { ...conversionWebhookFlags(flags), client: webhookClient },
      // A standby starts its caches now and works once elected (warm-standby.ts).
      ...(shared !== undefined
        ? { sharding: shared.sharding }
        : election !== undefined
          ? { sharding: warmStandby(election) }
          : {}),
    });
    // Every replica serves the web view (it only reads, and with the asker's token); its TokenReviews
    // go through a client of their own, never fenced and never taking the reconciles' request budget.
    uiClient =
      flags.uiBindAddress === "0" || flags.uiBindAddress === ""
        ? undefined
        : await createKubeClient({ ...connection, qps: 10, burst: 20, requestTimeoutMs: settings.requestTimeoutMs });
    ui = await startUiFromFlags(flags, {
      client: uiClient ?? client,
      served: running.served,
      logger,
      userAgent: connection.userAgent,
      ...(flags.rgdSelector === undefined ? {} : { rgdSelector: flags.rgdSelector }),
      ...(flags.clusterNamespace === undefined ? {} : { clusterNamespace: flags.clusterNamespace }),
    });
    await running.ready;
    synced = true;
    youngGenerationMayGrow();
    logger.info(
      {
        version: PACKAGE_VERSION,
        server: client.server,
        identity,
        ...(election === undefined ? {} : { leader: election.isLeader }),
      },
      "controller started",
    );
  };
  // A start failure (RGD CRD forbidden, informers not synced) ends the process with an error:
  // a controller that cannot work must not look healthy and never be restarted.
  const failedToStart = new Promise<Error>((resolve) => {
    start().catch((error: unknown) => {
      resolve(error instanceof Error ? error : new Error(String(error)));
    });
  });
  const reason = await Promise.race([
    untilSignal(),
    election?.lost.then(() => "lost leadership" as const) ?? new Promise<never>(() => undefined),
    failedToStart.then((error) => {
      logger.error({ err: error.message }, "controller failed to start");
      return "failed to start" as const;
    }),
  ]);
  logger.info({ reason }, "shutting down");
  await running?.stop();
  await shared?.stop();
  await election?.stop();
  await Promise.all([probes?.close(), metricsServer?.close(), ui?.close()]);
  client.close();
  eventClient.close();
  electionClient?.close();
  uiClient?.close();
  if (reason === "lost leadership" || reason === "failed to start") process.exitCode = 1;
}

function kubeMetricsFor(metrics: ControllerMetrics, signals: RequestSignals): KubeMetrics {
  return {
    onRequest: (m) => {
      metrics.apiRequests.inc({ verb: m.verb, code: String(m.status) });
      signals.answered(m.status);
    },
    onWatchReconnect: (m) => {
      metrics.informerReconnects.inc({ resource: m.resource, reason: m.reason });
    },
    onPoolWait: (m) => {
      metrics.poolWait.observe({ pool: m.pool }, m.waitMs / 1000);
    },
    onRateLimitWait: (ms) => {
      metrics.rateLimitWait.observe(ms / 1000);
      signals.heldByLimiter();
    },
  };
}

/** Test-only, read once here and never from instance data: see instance/evaluation-crash.ts. */
function testCrashFromEnvironment(): { testCrashOn?: TestCrash } {
  const crash = process.env.KRO_TEST_CRASH_ON ?? "";
  const kill = process.env.KRO_TEST_KILL_ON ?? "";
  if (crash !== "") return { testCrashOn: { name: crash, how: "crash" } };
  return kill === "" ? {} : { testCrashOn: { name: kill, how: "kill" } };
}

/** The evaluation pool: two threads, so one long pass does not hold every other one behind it. */
const EVALUATION_THREADS = 2;
const EVALUATION_HEAP_MB = 128;

/** The worker pools sized so that their threads' heap limits are reached before the container's memory limit (isolation/memory-fit.ts). */
function threadMemoryWithin(renderHeapMb: number): ThreadMemory {
  const constrained = process.constrainedMemory();
  // Without a cgroup limit Node reports 2^64 (or 0 on other systems): no limit.
  const limitMb = constrained > 0 && constrained < totalmem() ? constrained / 1024 / 1024 : undefined;
  return fitThreadMemory(
    limitMb,
    getHeapStatistics().heap_size_limit / 1024 / 1024,
    { threads: defaultRenderThreads(), heapMb: renderHeapMb },
    // A pass is bounded by its CEL cost and its deadline: a smaller heap than a chart's, in the same budget.
    { threads: EVALUATION_THREADS, heapMb: EVALUATION_HEAP_MB },
  );
}
