import type { Command } from "commander";
import { DEFAULT_KUBE_MINOR, KUBE_RELEASES, startLocalCluster } from "../localcluster/index.js";
import { createProgress } from "./progress.js";
import { untilSignal } from "./signals.js";

interface ClusterUpFlags {
  readonly minimal?: boolean;
  readonly kubeVersion: string;
  readonly kubeconfig?: string;
}

export function registerClusterCommands(program: Command): void {
  const cluster = program.command("cluster").description("run a local Kubernetes control plane (built from source, no Docker)");
  cluster
    .command("up")
    .description("start a local cluster in the foreground; Ctrl-C stops it and removes everything it created")
    .option("--minimal", "only etcd and kube-apiserver (no controllers, scheduler or simulated node)")
    .option("--kube-version <version>", `Kubernetes version: ${KUBE_RELEASES.map((r) => r.minor).join(", ")}`, DEFAULT_KUBE_MINOR)
    .option("--kubeconfig <file>", "also write the admin kubeconfig to this file (deleted again on exit)")
    .action(async (flags: ClusterUpFlags) => {
      const progress = createProgress();
      progress.step("preparing the local cluster");
      let cluster;
      try {
        cluster = await startLocalCluster({
          mode: flags.minimal === true ? "minimal" : "full",
          kubeVersion: flags.kubeVersion,
          env: process.env,
          onProgress: (message) => { progress.step(message); },
          ...(flags.kubeconfig === undefined ? {} : { kubeconfigPath: flags.kubeconfig }),
        });
      } catch (error) {
        progress.fail();
        throw error;
      }
      progress.done(`local cluster ready: Kubernetes ${cluster.kubernetesVersion} (${cluster.mode} mode) at ${cluster.server}`);
      process.stdout.write(
        `Ready. kubeconfig: ${cluster.kubeconfigPath}\n` +
        `  export KUBECONFIG=${cluster.kubeconfigPath}\n` +
        "  kubectl get namespaces\n" +
        `Component logs: ${cluster.stateDir}\n` +
        "Press Ctrl-C to stop.\n",
      );
      const signal = await untilSignal();
      process.stderr.write(`\n${signal}: stopping the local cluster…\n`);
      await cluster.stop();
      process.stderr.write("local cluster stopped; all processes and temporary files removed\n");
    });
}
