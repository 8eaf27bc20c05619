import type { Command } from "commander";
import { DEFAULT_KUBE_MINOR, KUBE_RELEASES } from "../../localcluster/index.js";
import {
  describeMembers,
  MAX_CLUSTERS,
  MEMBER_CLUSTER_NAMESPACE,
  parseClusterCount,
  startClusterSet,
} from "./member-clusters.js";
import { createProgress } from "./progress.js";
import { untilSignal } from "../process/index.js";

interface ClusterUpFlags {
  readonly minimal?: boolean;
  readonly kubeVersion: string;
  readonly kubeconfig?: string;
  readonly clusters?: string;
}

export function registerClusterCommands(program: Command): void {
  const cluster = program
    .command("cluster")
    .description("run a local Kubernetes control plane (built from source, no Docker)");
  cluster
    .command("up")
    .description("start a local cluster in the foreground; Ctrl-C stops it and removes everything it created")
    .option("--minimal", "only etcd and kube-apiserver (no controllers, scheduler or simulated node)")
    .option(
      "--kube-version <version>",
      `Kubernetes version: ${KUBE_RELEASES.map((r) => r.minor).join(", ")}`,
      DEFAULT_KUBE_MINOR,
    )
    .option("--kubeconfig <file>", "also write the admin kubeconfig to this file (deleted again on exit)")
    .option(
      "--clusters <n>",
      `the hub plus n−1 minimal member clusters, registered in the hub (namespace ${MEMBER_CLUSTER_NAMESPACE}) for \`cluster:\` targets; 1 to ${MAX_CLUSTERS}`,
      "1",
    )
    .action(async (flags: ClusterUpFlags) => {
      const count = parseClusterCount(flags.clusters);
      const progress = createProgress();
      progress.step("preparing the local cluster");
      let set;
      try {
        set = await startClusterSet(count, {
          mode: flags.minimal === true ? "minimal" : "full",
          kubeVersion: flags.kubeVersion,
          env: process.env,
          onProgress: (message) => {
            progress.step(message);
          },
          ...(flags.kubeconfig === undefined ? {} : { kubeconfigPath: flags.kubeconfig }),
        });
      } catch (error) {
        progress.fail();
        throw error;
      }
      const { hub: cluster, members } = set;
      progress.done(
        `local cluster ready: Kubernetes ${cluster.kubernetesVersion} (${cluster.mode} mode) at ${cluster.server}`,
      );
      process.stdout.write(
        `Ready. kubeconfig: ${cluster.kubeconfigPath}\n` +
          `  export KUBECONFIG=${cluster.kubeconfigPath}\n` +
          "  kubectl get namespaces\n" +
          describeMembers(members)
            .map((line) => `${line}\n`)
            .join("") +
          (members.length === 0
            ? ""
            : `  run the controller with --cluster-namespace ${MEMBER_CLUSTER_NAMESPACE} to place children in them\n`) +
          `Component logs: ${cluster.stateDir}\n` +
          "Press Ctrl-C to stop.\n",
      );
      const signal = await untilSignal();
      const plural = members.length === 0 ? "" : "s";
      process.stderr.write(`\n${signal}: stopping the local cluster${plural}…\n`);
      await set.stop();
      process.stderr.write(`local cluster${plural} stopped; all processes and temporary files removed\n`);
    });
}
