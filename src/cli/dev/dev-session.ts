/**
 * The session behind `kro dev` and `kro demo` (`npm start`): a full local cluster, the controller
 * in this process, the user's files applied (and re-applied on change), and live progress of
 * every instance until all are Ready — then how to use the cluster, until Ctrl-C tears it all
 * down (controller first, then the cluster, which removes its processes and temp dir).
 */
import { createWriteStream } from "node:fs";
import path from "node:path";
import { startController, type RunningController } from "../../controller/index.js";
import { loadBuiltinSchemas, InputError } from "../inputs/index.js";
import { createKubeClient, isNotFound, type KubeClient } from "../../kube/index.js";
import { resolveKubeRelease } from "../../localcluster/index.js";
import { createLogger } from "../../observability/index.js";
import { DevApplier, instanceOf, isRgd, servedKindOf, type DevObject, type ServedKind } from "./dev-apply.js";
import { loadDevFiles } from "./dev-files.js";
import { DevState, type InstanceRef } from "./dev-state.js";
import { watchFiles, type FileWatcher } from "./file-watcher.js";
import { LiveBoard } from "./live-board.js";
import { describeMembers, MEMBER_CLUSTER_NAMESPACE, startClusterSet, type ClusterSet } from "./member-clusters.js";
import { createProgress } from "./progress.js";
import { DevGraphs } from "./dev-graphs.js";
import { VerdictPrinter } from "./dev-verdict.js";
import { SerialWork } from "./serial-work.js";
import { untilSignal, youngGenerationMayGrow } from "../process/index.js";
import { PACKAGE_VERSION } from "../version.js";

export interface DevSessionOptions {
  /** Files applied as they are (CRDs, RGDs, anything). */
  readonly files: readonly string[];
  /** Instance files (applied after the RGDs, retried until their kind is served). */
  readonly instanceFiles: readonly string[];
  readonly watch: boolean;
  readonly kubeVersion: string;
  /** "examples" or "instances": the word in the ready line (`kro-ts: all examples Ready`). */
  readonly subject: string;
  readonly kubeconfig?: string;
  /** etcd and kube-apiserver only: faster and lighter, but no Deployment/Pod ever becomes ready. */
  readonly minimal?: boolean;
  /** The hub plus this many − 1 member clusters registered in it (member-clusters.ts); default 1. */
  readonly clusters?: number;
}

const TICK_MS = 1000;

export async function runDevSession(options: DevSessionOptions): Promise<void> {
  const release = resolveKubeRelease(options.kubeVersion);
  const builtins = await loadBuiltinSchemas(release.minor);
  const allFiles = [...options.files, ...options.instanceFiles];
  // Fail before the (possibly minutes-long) cluster start when a file cannot even be read.
  const first = await loadDevFiles(allFiles, builtins);
  const unreadable = first.diagnostics.filter((d) => d.startsWith("cannot read "));
  if (unreadable.length > 0) throw new InputError(unreadable.join("\n"));

  const progress = createProgress();
  const set = await startDevClusters(options, progress);
  const cluster = set.hub;
  const out = process.stdout;
  const controllerLog = path.join(cluster.stateDir, "controller.log");
  const logStream = createWriteStream(controllerLog, { flags: "a" });
  const client = await createKubeClient({ kubeconfig: cluster.kubeconfigPath, qps: 0 });
  const state = new DevState();
  const board = new LiveBoard({ stream: out });
  let controller: RunningController | undefined;
  let watcher: FileWatcher | undefined;
  let stopping = false;
  try {
    const draw = (): void => {
      if (!stopping) board.show(state.rows());
    };
    controller = startController({
      client,
      kroVersion: PACKAGE_VERSION,
      resolver: builtins,
      ...(set.members.length === 0 ? {} : { clusterNamespace: MEMBER_CLUSTER_NAMESPACE }),
      logger: createLogger({ level: "info", format: "text", name: "kro-controller", destination: logStream }),
      onInstanceEvaluated: (event) => {
        state.onEvaluated(event);
        draw();
      },
    });
    await controller.ready;
    youngGenerationMayGrow(); // heap-limits.ts: new space was held while the controller started
    out.write(`controller running in this process (log: ${controllerLog})\n`);

    const applier = new DevApplier(client, (entry, outcome) => {
      const ref = refOf(entry);
      if (ref !== undefined) state.onApply(ref, outcome);
      else if (outcome.state !== "applied")
        board.note(
          `${entry.file}: ${entry.object.kind ?? "?"} ${entry.object.metadata?.name ?? "?"}: ${outcome.message}`,
        );
    });
    let kinds = servedKinds(first.objects);
    const refOf = (entry: DevObject): InstanceRef | undefined => {
      const served = instanceOf(entry.object, kinds);
      if (served === undefined) return undefined;
      const { apiVersion = "", kind = "", metadata } = entry.object;
      return { apiVersion, kind, namespace: metadata?.namespace ?? "default", name: metadata?.name ?? "" };
    };
    const graphs = new DevGraphs(
      cluster.stateDir,
      (rgdName) => state.colorsFor(rgdName),
      (line) => {
        board.note(line);
      },
    );
    const reload = async (load: Awaited<ReturnType<typeof loadDevFiles>>): Promise<void> => {
      for (const line of load.diagnostics) board.note(line);
      if (load.errors > 0) {
        board.note(
          `kro-ts: ${load.errors} error(s); files that parse are applied anyway (the controller reports the same problems on the RGD's status)${options.watch ? " — fix and save, kro dev re-applies on every change" : ""}`,
        );
      }
      kinds = servedKinds(load.objects);
      state.track(
        load.objects.flatMap((o) => {
          const ref = refOf(o);
          const served = instanceOf(o.object, kinds);
          return ref === undefined || served === undefined ? [] : [{ ref, served }];
        }),
      );
      draw();
      await graphs.show(load.graphs);
      await applier.applyAll(load.objects.filter((o) => !load.skippedFiles.includes(o.file)));
      draw();
    };

    const verdicts = new VerdictPrinter(options.subject);
    let usagePrinted = false;
    // One queue for reloads and ticks: the applier and the board are never used concurrently.
    const work = new SerialWork((error) => {
      board.note(`kro-ts: ${error instanceof Error ? error.message : String(error)}`);
    });
    work.enqueue(() => reload(first));
    if (options.watch) {
      watcher = watchFiles(allFiles, (changed) => {
        work.enqueue(async () => {
          board.note(
            `changed: ${changed.map((f) => path.relative(process.cwd(), f)).join(", ")} — re-validating and re-applying`,
          );
          verdicts.reset();
          await reload(await loadDevFiles(allFiles, builtins));
        });
      });
    }

    const tick = async (): Promise<void> => {
      await applier.retry();
      await poll(client, state);
      draw();
      await graphs.recolor();
      const line = verdicts.next(state.verdict());
      if (line === undefined) return;
      board.freeze();
      board.note(line);
      if (!usagePrinted) {
        usagePrinted = true;
        board.note(
          usage(set, controller?.served.all().map((s) => s.instance.plural) ?? [], graphs.paths(), state.refs()),
        );
      }
    };
    // At most one tick waiting: a slow API server must not pile ticks up behind each other.
    let tickQueued = false;
    const timer = setInterval(() => {
      if (tickQueued) return;
      tickQueued = true;
      work.enqueue(async () => {
        tickQueued = false;
        await tick();
      });
    }, TICK_MS);
    const signal = await untilSignal();
    stopping = true;
    clearInterval(timer);
    watcher?.close();
    out.write(`\n${signal}: stopping the controller and the local cluster…\n`);
    await work.drained();
  } finally {
    watcher?.close();
    await controller?.stop();
    client.close();
    await new Promise<void>((resolve) => {
      logStream.end(resolve);
    });
    await set.stop();
  }
  out.write("stopped; all processes and temporary files removed\n");
}

/** The hub (and member clusters), with progress while they start: the first run builds them. */
async function startDevClusters(
  options: DevSessionOptions,
  progress: ReturnType<typeof createProgress>,
): Promise<ClusterSet> {
  progress.step("preparing the local cluster");
  let set: ClusterSet;
  try {
    set = await startClusterSet(options.clusters ?? 1, {
      mode: options.minimal === true ? "minimal" : "full",
      kubeVersion: options.kubeVersion,
      env: process.env,
      onProgress: (m) => {
        progress.step(m);
      },
      ...(options.kubeconfig === undefined ? {} : { kubeconfigPath: options.kubeconfig }),
    });
  } catch (error) {
    progress.fail();
    throw error;
  }
  progress.done(`local cluster ready: Kubernetes ${set.hub.kubernetesVersion} at ${set.hub.server}`);
  return set;
}

function servedKinds(objects: readonly DevObject[]): ServedKind[] {
  return objects
    .map((o) => o.object)
    .filter(isRgd)
    .flatMap((r) => servedKindOf(r) ?? []);
}

/** Reads every tracked instance and RGD from the cluster: the status kubectl shows is the truth. */
async function poll(client: KubeClient, state: DevState): Promise<void> {
  const read = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      if (isNotFound(error) || (error as { code?: string }).code === "KUBE_KIND_NOT_FOUND") return undefined;
      throw error;
    }
  };
  for (const name of state.rgdNames()) {
    state.onRgdRead(
      name,
      await read(() => client.get({ apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", name })),
    );
  }
  for (const ref of state.refs()) state.onInstanceRead(ref, await read(() => client.get(ref)));
}

function usage(
  { hub: cluster, members }: ClusterSet,
  plurals: readonly string[],
  graphs: readonly string[],
  refs: readonly InstanceRef[],
): string {
  const kubeconfig = cluster.kubeconfigPath;
  const [firstRef] = refs;
  return [
    `Ready. kubeconfig: ${kubeconfig}`,
    "In another terminal:",
    `  export KUBECONFIG=${kubeconfig}`,
    "  kubectl get resourcegraphdefinitions",
    ...(plurals.length === 0 ? [] : [`  kubectl get ${[...new Set(plurals)].join(",")} -A`]),
    "  kubectl get deployments,services,ingresses -A -l app.kubernetes.io/managed-by=kro",
    ...(firstRef === undefined
      ? []
      : [`  kubectl get ${firstRef.kind.toLowerCase()} ${firstRef.name} -n ${firstRef.namespace} -o yaml`]),
    ...describeMembers(members),
    ...graphs.map((g) => `Graph: ${g}`),
    `Component logs: ${cluster.stateDir}`,
    "Press Ctrl-C to stop (removes the cluster and everything it created).",
  ].join("\n");
}
