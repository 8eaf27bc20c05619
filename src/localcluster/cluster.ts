/**
 * Starts a real control plane on loopback: etcd and kube-apiserver (minimal mode), plus
 * kube-controller-manager, kube-scheduler and kwok with one simulated node (full mode).
 * Every process it starts and every file it writes is removed by stop(); a detached reaper does
 * the same if this process dies without stopping.
 */
import { spawn } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { get as httpGet } from "node:http";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { apiRequest, type ProbeTarget } from "./api-probe.js";
import { resolveBinaries } from "./binaries.js";
import {
  apiserverArgs,
  auditArgs,
  controllerManagerArgs,
  etcdArgs,
  files,
  defaultStorageClass,
  kwokArgs,
  kwokNode,
  KWOK_NODE_NAME,
  schedulerArgs,
  type ClusterLayout,
} from "./component-args.js";
import type { ClusterMode, Component } from "./components.js";
import { freeLoopbackPort } from "./free-port.js";
import { adminKubeconfig } from "./kubeconfig.js";
import { ManagedProcess } from "./managed-process.js";
import { resolveKubeRelease } from "./versions.js";

export interface LocalClusterOptions {
  readonly mode?: ClusterMode;
  /** "1.31" | "1.32" | "1.33" (default). */
  readonly kubeVersion?: string;
  /** Also write the admin kubeconfig here (removed again on stop). */
  readonly kubeconfigPath?: string;
  /** The environment to read envtest variables, cache and Go settings from. */
  readonly env: NodeJS.ProcessEnv;
  readonly onProgress?: (message: string) => void;
  /** How long to wait for the control plane to become ready, once binaries exist. */
  readonly startTimeoutMs?: number;
  /**
   * An audit policy (YAML): kube-apiserver then logs the requests it selects to `auditLogPath`,
   * which tells who sent what (user agent, verb, object) — the API server's own ground truth.
   */
  readonly auditPolicy?: string;
}

export interface StopOptions {
  /** Copy the component logs into this folder before removing everything. */
  readonly keepLogsIn?: string;
}

export interface LocalCluster {
  readonly mode: ClusterMode;
  readonly kubernetesVersion: string;
  readonly server: string;
  readonly token: string;
  /** PEM bundle that verifies the API server's certificate. */
  readonly caData: string;
  /** etcd's client URL (plain HTTP on loopback): tests read what is really stored, e.g. an object's storage version. */
  readonly etcdEndpoint: string;
  readonly kubeconfigPath: string;
  readonly stateDir: string;
  readonly logFiles: Readonly<Record<string, string>>;
  /** JSON lines of audit events, when started with an `auditPolicy`. */
  readonly auditLogPath?: string;
  /**
   * Stops one running component, waits downtimeMs, and starts it again with the same arguments
   * (for kube-apiserver: until /readyz). Lets a test prove clients survive an outage.
   */
  restartComponent(component: Component, options?: RestartOptions): Promise<void>;
  stop(options?: StopOptions): Promise<void>;
}

export interface RestartOptions {
  /** How long the component stays down. */
  readonly downtimeMs?: number;
}

const REAPER = fileURLToPath(new URL("./reaper.js", import.meta.url));

export class ClusterStartError extends Error {
  override readonly name = "ClusterStartError";
}

async function waitFor(
  what: string,
  timeoutMs: number,
  processes: readonly ManagedProcess[],
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const p of processes) {
      if (p.exit !== undefined) {
        throw new ClusterStartError(
          `${p.name} exited (${p.exit}) while waiting for ${what}; last lines of ${p.logFile}:\n${await p.logTail()}`,
        );
      }
    }
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) {
      const tails = await Promise.all(processes.map(async (p) => `--- ${p.logFile}\n${await p.logTail(8)}`));
      throw new ClusterStartError(`timed out after ${timeoutMs / 1000}s waiting for ${what}\n${tails.join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function etcdHealthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpGet({ host: "127.0.0.1", port, path: "/health", timeout: 1000 }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => {
        resolve(res.statusCode === 200 && body.includes("true"));
      });
    });
    req.on("error", () => {
      resolve(false);
    });
    req.on("timeout", () => {
      req.destroy();
      resolve(false);
    });
  });
}

async function writeCredentials(stateDir: string, token: string): Promise<void> {
  const f = files(stateDir);
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  await writeFile(f.serviceAccountKey, privateKey.export({ type: "sec1", format: "pem" }), { mode: 0o600 });
  await writeFile(f.serviceAccountPub, publicKey.export({ type: "spki", format: "pem" }));
  await writeFile(f.tokens, `${token},kro-admin,kro-admin,"system:masters"\n`, { mode: 0o600 });
}

export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  const mode = options.mode ?? "full";
  const release = resolveKubeRelease(options.kubeVersion);
  const progress = options.onProgress ?? (() => undefined);
  const timeoutMs = options.startTimeoutMs ?? 120_000;
  const binaries = await resolveBinaries({ release, mode, env: options.env, onProgress: progress });

  const stateDir = await mkdtemp(path.join(tmpdir(), "kro-cluster-"));
  const f = files(stateDir);
  await writeFile(f.pids, "");
  const userKubeconfig = options.kubeconfigPath === undefined ? [] : [path.resolve(options.kubeconfigPath)];
  const reaper = spawn(process.execPath, [REAPER, String(process.pid), stateDir, ...userKubeconfig], {
    detached: true,
    stdio: "ignore",
  });
  reaper.unref();

  const processes: ManagedProcess[] = [];
  const logFiles: Record<string, string> = {};
  let userKubeconfigWritten = false;
  const stop = async (stopOptions: StopOptions = {}): Promise<void> => {
    for (const p of [...processes].reverse()) await p.stop();
    if (stopOptions.keepLogsIn !== undefined) {
      await mkdir(stopOptions.keepLogsIn, { recursive: true });
      for (const [name, file] of Object.entries(logFiles)) {
        await copyFile(file, path.join(stopOptions.keepLogsIn, `${name}.log`)).catch(() => undefined);
      }
    }
    await rm(stateDir, { recursive: true, force: true });
    if (userKubeconfigWritten && options.kubeconfigPath !== undefined)
      await rm(options.kubeconfigPath, { force: true });
  };
  const launchArgs = new Map<Component, string[]>();
  const launch = async (component: Component, args: string[]): Promise<ManagedProcess> => {
    const binary = binaries[component];
    if (binary === undefined) throw new ClusterStartError(`no binary for ${component}`);
    logFiles[component] = f.log(component);
    launchArgs.set(component, args);
    const started = await ManagedProcess.start(component, binary, args, f.log(component), f.pids);
    processes.push(started);
    return started;
  };

  try {
    const layout: ClusterLayout = {
      stateDir,
      etcdClientPort: await freeLoopbackPort(),
      etcdPeerPort: await freeLoopbackPort(),
      apiserverPort: await freeLoopbackPort(),
      kwokPort: await freeLoopbackPort(),
    };
    const token = randomBytes(24).toString("hex");
    await writeCredentials(stateDir, token);

    progress("starting etcd");
    await launch("etcd", etcdArgs(layout));
    await waitFor("etcd to be healthy", timeoutMs, processes, () => etcdHealthy(layout.etcdClientPort));

    progress(`starting kube-apiserver ${release.kubernetes}`);
    if (options.auditPolicy !== undefined) await writeFile(f.auditPolicy, options.auditPolicy);
    await launch("kube-apiserver", [
      ...apiserverArgs(layout),
      ...(options.auditPolicy === undefined ? [] : auditArgs(stateDir)),
    ]);
    const server = `https://127.0.0.1:${layout.apiserverPort}`;
    let caData = "";
    const target = (): ProbeTarget => ({ server, token, ca: caData });
    await waitFor("kube-apiserver /readyz", timeoutMs, processes, async () => {
      caData = await readFile(f.servingCert, "utf8");
      return (await apiRequest(target(), "GET", "/readyz")).status === 200;
    });
    await waitFor(
      "namespace default",
      timeoutMs,
      processes,
      async () => (await apiRequest(target(), "GET", "/api/v1/namespaces/default")).status === 200,
    );

    const kubeconfig = adminKubeconfig({ server, token, caData });
    await writeFile(f.kubeconfig, kubeconfig, { mode: 0o600 });
    if (options.kubeconfigPath !== undefined) {
      await mkdir(path.dirname(options.kubeconfigPath), { recursive: true });
      await writeFile(options.kubeconfigPath, kubeconfig, { mode: 0o600 });
      userKubeconfigWritten = true;
    }

    if (mode === "full") {
      progress("starting kube-controller-manager, kube-scheduler and kwok");
      await launch("kube-controller-manager", controllerManagerArgs(layout));
      await launch("kube-scheduler", schedulerArgs(layout));
      await launch("kwok", kwokArgs(layout));
      const created = await apiRequest(target(), "POST", "/api/v1/nodes", kwokNode());
      if (created.status !== 201)
        throw new ClusterStartError(`creating node ${KWOK_NODE_NAME} failed: HTTP ${created.status} ${created.body}`);
      // The pod CIDR too: kwok gives a pod an address from its node's podCIDR when it has one.
      await waitFor(`node ${KWOK_NODE_NAME} to be Ready with a pod CIDR`, timeoutMs, processes, async () => {
        const node = JSON.parse((await apiRequest(target(), "GET", `/api/v1/nodes/${KWOK_NODE_NAME}`)).body) as {
          spec?: { podCIDR?: string };
          status?: { conditions?: { type: string; status: string }[] };
        };
        return (
          node.spec?.podCIDR !== undefined &&
          node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true
        );
      });
      const storageClass = await apiRequest(
        target(),
        "POST",
        "/apis/storage.k8s.io/v1/storageclasses",
        defaultStorageClass(),
      );
      if (storageClass.status !== 201)
        throw new ClusterStartError(
          `creating the default StorageClass failed: HTTP ${storageClass.status} ${storageClass.body}`,
        );
      await waitFor(
        "service account default/default",
        timeoutMs,
        processes,
        async () =>
          (await apiRequest(target(), "GET", "/api/v1/namespaces/default/serviceaccounts/default")).status === 200,
      );
    }

    const restartComponent = async (component: Component, restart: RestartOptions = {}): Promise<void> => {
      const index = processes.findIndex((p) => p.name === component);
      const args = launchArgs.get(component);
      const binary = binaries[component];
      const old = processes[index];
      if (old === undefined || args === undefined || binary === undefined)
        throw new ClusterStartError(`${component} is not running in this cluster`);
      await old.stop();
      await new Promise((resolve) => setTimeout(resolve, restart.downtimeMs ?? 0));
      // Same slot in the list, so stop() still stops components in reverse start order.
      const started = await ManagedProcess.start(component, binary, args, f.log(component), f.pids);
      processes[index] = started;
      if (component === "kube-apiserver") {
        await waitFor(
          "kube-apiserver /readyz after restart",
          timeoutMs,
          processes,
          async () => (await apiRequest(target(), "GET", "/readyz")).status === 200,
        );
      }
    };

    return {
      mode,
      restartComponent,
      kubernetesVersion: release.kubernetes,
      server,
      token,
      caData,
      etcdEndpoint: `http://127.0.0.1:${layout.etcdClientPort}`,
      kubeconfigPath: options.kubeconfigPath ?? f.kubeconfig,
      stateDir,
      logFiles,
      ...(options.auditPolicy === undefined ? {} : { auditLogPath: f.auditLog }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
