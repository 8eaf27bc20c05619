/**
 * The session behind `kro dev` and `kro demo` (`npm start`): a full local cluster, the controller
 * in this process, the user's files applied (and re-applied on change), and live progress of
 * every instance until all are Ready — then how to use the cluster, until Ctrl-C tears it all
 * down (controller first, then the cluster, which removes its processes and temp dir).
 */
import { createWriteStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { startController, type RunningController } from "../controller/index.js";
import { loadBuiltinSchemas } from "./builtin-schemas.js";
import { graphPicture, type CompiledGraph, type NodeState } from "../graph/index.js";
import { createKubeClient, isNotFound, type KubeClient } from "../kube/index.js";
import { resolveKubeRelease } from "../localcluster/index.js";
import { createLogger } from "../observability/index.js";
import { DevApplier, instanceOf, isRgd, servedKindOf, type DevObject, type ServedKind } from "./dev-apply.js";
import { loadDevFiles } from "./dev-files.js";
import { InputError } from "./inputs.js";
import { DevState, type InstanceRef } from "./dev-state.js";
import { watchFiles, type FileWatcher } from "./file-watcher.js";
import { LiveBoard } from "./live-board.js";
import { describeMembers, MEMBER_CLUSTER_NAMESPACE, startClusterSet, type ClusterSet } from "./member-clusters.js";
import { createProgress } from "./progress.js";
import { renderSvg } from "../inspect/index.js";
import { untilSignal } from "./signals.js";
import { PACKAGE_VERSION } from "./version.js";
import { youngGenerationMayGrow } from "./heap-limits.js";

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
  progress.step("preparing the local cluster");
  let set: ClusterSet;
  try {
    set = await startClusterSet(options.clusters ?? 1, {
      mode: options.minimal === true ? "minimal" : "full", kubeVersion: options.kubeVersion, env: process.env, onProgress: (m) => { progress.step(m); },
      ...(options.kubeconfig === undefined ? {} : { kubeconfigPath: options.kubeconfig }),
    });
  } catch (error) {
    progress.fail();
    throw error;
  }
  const cluster = set.hub;
  progress.done(`local cluster ready: Kubernetes ${cluster.kubernetesVersion} at ${cluster.server}`);
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
    const draw = (): void => { if (!stopping) board.show(state.rows()); };
    controller = startController({
      client, kroVersion: PACKAGE_VERSION, resolver: builtins,
      ...(set.members.length === 0 ? {} : { clusterNamespace: MEMBER_CLUSTER_NAMESPACE }),
      logger: createLogger({ level: "info", format: "text", name: "kro-controller", destination: logStream }),
      onInstanceEvaluated: (event) => { state.onEvaluated(event); draw(); },
    });
    await controller.ready;
    youngGenerationMayGrow(); // heap-limits.ts: new space was held while the controller started
    out.write(`controller running in this process (log: ${controllerLog})\n`);

    const applier = new DevApplier(client, (entry, outcome) => {
      const ref = refOf(entry);
      if (ref !== undefined) state.onApply(ref, outcome);
      else if (outcome.state !== "applied") board.note(`${entry.file}: ${entry.object.kind ?? "?"} ${entry.object.metadata?.name ?? "?"}: ${outcome.message}`);
    });
    let kinds = servedKinds(first.objects);
    const refOf = (entry: DevObject): InstanceRef | undefined => {
      const served = instanceOf(entry.object, kinds);
      if (served === undefined) return undefined;
      const { apiVersion = "", kind = "", metadata } = entry.object;
      return { apiVersion, kind, namespace: metadata?.namespace ?? "default", name: metadata?.name ?? "" };
    };
    const graphFiles = new Map<string, string>();
    let graphs: readonly CompiledGraph[] = [];
    // Each RGD's SVG follows the live state of its instance (when exactly one instance uses it).
    const writtenColors = new Map<string, string>();
    const recolorGraphs = async (): Promise<void> => {
      for (const graph of graphs) {
        const colorBy = state.colorsFor(graph.name);
        const key = JSON.stringify(colorBy ?? null);
        if (writtenColors.get(graph.name) === key) continue;
        await writeGraph(cluster.stateDir, graph, colorBy);
        writtenColors.set(graph.name, key);
      }
    };
    const reload = async (load: Awaited<ReturnType<typeof loadDevFiles>>): Promise<void> => {
      for (const line of load.diagnostics) board.note(line);
      if (load.errors > 0) {
        board.note(`kro-ts: ${load.errors} error(s); files that parse are applied anyway (the controller reports the same problems on the RGD's status)${options.watch ? " — fix and save, kro dev re-applies on every change" : ""}`);
      }
      kinds = servedKinds(load.objects);
      state.track(load.objects.flatMap((o) => {
        const ref = refOf(o);
        const served = instanceOf(o.object, kinds);
        return ref === undefined || served === undefined ? [] : [{ ref, served }];
      }));
      draw();
      graphs = load.graphs;
      writtenColors.clear();
      for (const graph of load.graphs) {
        const file = await writeGraph(cluster.stateDir, graph, state.colorsFor(graph.name));
        writtenColors.set(graph.name, JSON.stringify(state.colorsFor(graph.name) ?? null));
        if (graphFiles.get(graph.name) !== file) board.note(`graph of ${graph.name}: ${file}`);
        graphFiles.set(graph.name, file);
      }
      await applier.applyAll(load.objects.filter((o) => !load.skippedFiles.includes(o.file)));
      draw();
    };

    // The verdict line last printed (printed again only when it changes) and whether the usage was.
    let printedVerdict = "";
    let usagePrinted = false;
    // One queue for reloads and ticks: the applier and the board are never used concurrently.
    let queue: Promise<void> = Promise.resolve();
    const enqueue = (work: () => Promise<void>): void => {
      queue = queue.then(work).catch((error: unknown) => { board.note(`kro-ts: ${error instanceof Error ? error.message : String(error)}`); });
    };
    enqueue(() => reload(first));
    if (options.watch) {
      watcher = watchFiles(allFiles, (changed) => {
        enqueue(async () => {
          board.note(`changed: ${changed.map((f) => path.relative(process.cwd(), f)).join(", ")} — re-validating and re-applying`);
          printedVerdict = "";
          await reload(await loadDevFiles(allFiles, builtins));
        });
      });
    }

    const tick = async (): Promise<void> => {
      await applier.retry();
      await poll(client, state);
      draw();
      await recolorGraphs();
      const verdict = state.verdict();
      if (!verdict.settled || verdict.total === 0) return;
      const line = (verdict.ready === verdict.total
        ? `kro-ts: all ${options.subject} Ready`
        : `kro-ts: ${verdict.ready} of ${verdict.total} ${options.subject} Ready; not Ready:\n${verdict.notReady.map((l) => `  ${l}`).join("\n")}`)
        + verdict.rgdProblems.map((p) => `\n  but ${p}`).join("");
      if (line === printedVerdict) return;
      printedVerdict = line;
      board.freeze();
      board.note(line);
      if (!usagePrinted) {
        usagePrinted = true;
        board.note(usage(set, controller?.served.all().map((s) => s.instance.plural) ?? [], [...graphFiles.values()], state.refs()));
      }
    };
    // At most one tick waiting: a slow API server must not pile ticks up behind each other.
    let tickQueued = false;
    const timer = setInterval(() => {
      if (tickQueued) return;
      tickQueued = true;
      enqueue(async () => { tickQueued = false; await tick(); });
    }, TICK_MS);
    const signal = await untilSignal();
    stopping = true;
    clearInterval(timer);
    watcher?.close();
    out.write(`\n${signal}: stopping the controller and the local cluster…\n`);
    await queue;
  } finally {
    watcher?.close();
    await controller?.stop();
    client.close();
    await new Promise<void>((resolve) => { logStream.end(resolve); });
    await set.stop();
  }
  out.write("stopped; all processes and temporary files removed\n");
}

function servedKinds(objects: readonly DevObject[]): ServedKind[] {
  return objects.map((o) => o.object).filter(isRgd).flatMap((r) => servedKindOf(r) ?? []);
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
    state.onRgdRead(name, await read(() => client.get({ apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", name })));
  }
  for (const ref of state.refs()) state.onInstanceRead(ref, await read(() => client.get(ref)));
}

async function writeGraph(dir: string, graph: CompiledGraph, colorBy?: Record<string, NodeState>): Promise<string> {
  const file = path.join(dir, `${graph.name}.svg`);
  await writeFile(file, await renderSvg(graphPicture(graph, "dot", colorBy === undefined ? {} : { colorBy })));
  return file;
}

function usage({ hub: cluster, members }: ClusterSet, plurals: readonly string[], graphs: readonly string[], refs: readonly InstanceRef[]): string {
  const kubeconfig = cluster.kubeconfigPath;
  const [firstRef] = refs;
  return [
    `Ready. kubeconfig: ${kubeconfig}`,
    "In another terminal:",
    `  export KUBECONFIG=${kubeconfig}`,
    "  kubectl get resourcegraphdefinitions",
    ...(plurals.length === 0 ? [] : [`  kubectl get ${[...new Set(plurals)].join(",")} -A`]),
    "  kubectl get deployments,services,ingresses -A -l app.kubernetes.io/managed-by=kro",
    ...(firstRef === undefined ? [] : [`  kubectl get ${firstRef.kind.toLowerCase()} ${firstRef.name} -n ${firstRef.namespace} -o yaml`]),
    ...describeMembers(members),
    ...graphs.map((g) => `Graph: ${g}`),
    `Component logs: ${cluster.stateDir}`,
    "Press Ctrl-C to stop (removes the cluster and everything it created).",
  ].join("\n");
}
