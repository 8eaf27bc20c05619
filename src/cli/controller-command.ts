import { hostname } from "node:os";
import type { Command } from "commander";
import { loadBuiltinSchemas, startController, startLeaderElection } from "../controller/index.js";
import { createKubeClient } from "../kube/index.js";
import { DEFAULT_KUBE_MINOR, resolveKubeRelease } from "../localcluster/index.js";
import { ControllerMetrics, createLogger, isLogLevel, startProbeServer } from "../observability/index.js";
import { untilSignal } from "./signals.js";
import { PACKAGE_VERSION } from "./version.js";

interface ControllerFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly metricsBindAddress: string;
  readonly healthProbeBindAddress: string;
  readonly leaderElect?: boolean;
  readonly leaderElectionNamespace?: string;
  readonly leaderElectionId: string;
  readonly workers: string;
  readonly clientQps: string;
  readonly clientBurst: string;
  readonly logLevel: string;
  readonly logFormat: string;
  readonly allowCrdDeletion?: boolean;
  readonly instanceRequeueInterval: string;
  readonly kubeVersion: string;
  readonly resyncPeriod: string;
  readonly evaluationTimeout: string;
  readonly rgdSelector?: string;
  readonly rgdMaxGraphRevisions: string;
}

export function registerControllerCommand(program: Command): void {
  program
    .command("controller")
    .description("run the controller: every ResourceGraphDefinition becomes an API, every instance converges")
    .option("--kubeconfig <file>", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
    .option("--context <name>", "kubeconfig context")
    .option("--metrics-bind-address <addr>", "Prometheus /metrics address (0 disables)", ":8078")
    .option("--health-probe-bind-address <addr>", "/healthz and /readyz address (0 disables)", ":8079")
    .option("--leader-elect", "elect a leader through a Lease so only one replica writes")
    .option("--leader-election-namespace <ns>", "namespace of the Lease (default: $POD_NAMESPACE or kro-system)")
    .option("--leader-election-id <name>", "name of the Lease", "controller.kro.run")
    .option("--workers <n>", "concurrent instance reconciles", "4")
    .option("--client-qps <n>", "client-side request rate limit (0 = off)", "100")
    .option("--client-burst <n>", "client-side burst", "150")
    .option("--log-level <level>", "fatal|error|warn|info|debug|trace", "info")
    .option("--log-format <format>", "json|text", "json")
    .option("--allow-crd-deletion", "delete an RGD's CRD (and all its instances) when the RGD is deleted")
    .option("--instance-requeue-interval <duration>", "safety-net requeue while an instance waits on data (e.g. 3s, 0 = off)", "3s")
    .option("--rgd-selector <selector>", "only reconcile RGDs matching this label selector (shard RGDs across controllers)")
    .option("--rgd-max-graph-revisions <n>", "GraphRevisions kept per RGD, newest first; the served one is always kept (0 keeps all)", "5")
    .option("--resync-period <duration>", "reconcile every instance again this often, events or not", "10h")
    .option("--evaluation-timeout <duration>", "wall-clock limit of one instance evaluation pass (0 = off)", "2s")
    .option("--kube-version <minor>", "built-in schemas used to type-check child templates", DEFAULT_KUBE_MINOR)
    .action(async (flags: ControllerFlags) => {
      if (!isLogLevel(flags.logLevel)) throw new Error(`--log-level: unknown level "${flags.logLevel}"`);
      if (flags.logFormat !== "json" && flags.logFormat !== "text") throw new Error(`--log-format must be json or text, got "${flags.logFormat}"`);
      const logger = createLogger({ level: flags.logLevel, format: flags.logFormat, name: "kro-controller" });
      const metrics = new ControllerMetrics({ processMetrics: true });
      const client = await createKubeClient({
        kubeconfig: flags.kubeconfig,
        context: flags.context,
        env: process.env,
        qps: positiveNumber("--client-qps", flags.clientQps),
        burst: positiveNumber("--client-burst", flags.clientBurst),
        logger,
        metrics: {
          onRequest: (m) => { metrics.apiRequests.inc({ verb: m.verb, code: String(m.status) }); },
          onWatchReconnect: (m) => { metrics.informerReconnects.inc({ resource: m.resource, reason: m.reason }); },
        },
      });
      // Events get a client (and rate limit) of their own, as client-go's event recorder does.
      const eventClient = await createKubeClient({ kubeconfig: flags.kubeconfig, context: flags.context, env: process.env, qps: 20, burst: 50, logger });
      const resolver = await loadBuiltinSchemas(resolveKubeRelease(flags.kubeVersion).minor);
      let running: ReturnType<typeof startController> | undefined;
      let synced = false;
      const probes = await startProbeServer({ address: flags.healthProbeBindAddress, ready: () => synced });
      const metricsServer = await startProbeServer({ address: flags.metricsBindAddress, registry: metrics.registry });
      const election = flags.leaderElect === true
        ? startLeaderElection({ client, logger, namespace: flags.leaderElectionNamespace ?? process.env.POD_NAMESPACE ?? "kro-system", name: flags.leaderElectionId, identity: `${hostname()}_${process.pid}` })
        : undefined;
      const start = async () => {
        running = startController({
          client, eventClient, logger, metrics, resolver, kroVersion: PACKAGE_VERSION,
          workers: positiveNumber("--workers", flags.workers),
          allowCrdDeletion: flags.allowCrdDeletion === true,
          requeueIntervalMs: parseDuration(flags.instanceRequeueInterval),
          resyncPeriodMs: parseDuration(flags.resyncPeriod),
          maxGraphRevisions: Math.floor(positiveNumber("--rgd-max-graph-revisions", flags.rgdMaxGraphRevisions)),
          evaluationTimeoutMs: parseDuration(flags.evaluationTimeout),
          ...(flags.rgdSelector === undefined ? {} : { rgdSelector: flags.rgdSelector }),
        });
        await running.ready;
        synced = true;
        logger.info({ version: PACKAGE_VERSION, server: client.server }, "controller started");
      };
      const stopped = untilSignal();
      if (election === undefined) await start();
      else {
        synced = true; // a standby is healthy and ready; it just does not write
        void election.acquired.then(start);
      }
      const reason = await Promise.race([stopped, election?.lost.then(() => "lost leadership" as const) ?? new Promise<never>(() => undefined)]);
      logger.info({ reason }, "shutting down");
      await running?.stop();
      await election?.stop();
      await Promise.all([probes?.close(), metricsServer?.close()]);
      client.close();
      eventClient.close();
      if (reason === "lost leadership") process.exitCode = 1;
    });
}

function positiveNumber(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} must be a non-negative number, got "${value}"`);
  return n;
}

/** "3s", "500ms", "1m", or plain milliseconds. */
export function parseDuration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (match === null) throw new Error(`invalid duration "${value}": use e.g. 500ms, 3s, 1m`);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "ms") as "ms" | "s" | "m" | "h"];
  return Number(match[1]) * factor;
}
