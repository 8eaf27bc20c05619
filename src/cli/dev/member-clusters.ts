/**
 * `--clusters N` for `kro cluster up`, `kro dev` and `kro demo`: besides the
 * hub (the cluster the controller runs against), N−1 member clusters — minimal control planes,
 * enough for ConfigMaps, Secrets and custom resources — each registered in the hub the way a
 * platform team registers a real one: a kubeconfig Secret in the controller's cluster namespace,
 * labelled with the cluster's name (docs/design/clusters.md). The names are regions, so the
 * bundled multi-cluster example (examples/multicluster) reads like a real deployment.
 */
import { readFile } from "node:fs/promises";
import { CLUSTER_NAME_LABELS, KUBECONFIG_KEYS, USUAL_CLUSTER_NAMESPACE } from "../../controller/index.js";
import { createKubeClient, isConflict, isNotFound, type KubeClient } from "../../kube/index.js";
import { startLocalCluster, type LocalCluster, type LocalClusterOptions } from "../../localcluster/index.js";
import { InputError } from "../inputs/index.js";

/** Where the local tools register member clusters, and where their controller reads them. */
export const MEMBER_CLUSTER_NAMESPACE = USUAL_CLUSTER_NAMESPACE;
export const MEMBER_CLUSTER_NAMES = [
  "eu-west",
  "us-east",
  "ap-south",
  "sa-east",
  "eu-north",
  "us-west",
  "ap-east",
] as const;
export const MAX_CLUSTERS = MEMBER_CLUSTER_NAMES.length + 1;

export interface MemberCluster {
  readonly name: string;
  readonly cluster: LocalCluster;
}

/** `--clusters` as typed: the hub plus members, 1 (the hub alone) to MAX_CLUSTERS. */
export function parseClusterCount(text: string | undefined): number {
  if (text === undefined) return 1;
  const count = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(count) || count < 1 || count > MAX_CLUSTERS) {
    throw new InputError(
      `--clusters: expected a whole number from 1 (the hub alone) to ${MAX_CLUSTERS}, got "${text}"`,
    );
  }
  return count;
}

/**
 * Starts `count − 1` member clusters at once (minimal mode). If one fails, those already started
 * are stopped again: nothing is left running.
 */
export async function startMemberClusters(
  count: number,
  options: { kubeVersion: string; onProgress?: (message: string) => void },
): Promise<MemberCluster[]> {
  const names = MEMBER_CLUSTER_NAMES.slice(0, Math.max(0, count - 1));
  const started = await Promise.allSettled(
    names.map(async (name) => {
      const cluster = await startLocalCluster({
        mode: "minimal",
        kubeVersion: options.kubeVersion,
        env: process.env,
        onProgress: (message) => {
          options.onProgress?.(`${name}: ${message}`);
        },
      });
      return { name, cluster };
    }),
  );
  const members = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed !== undefined) {
    await stopMemberClusters(members);
    throw failed.reason;
  }
  return members;
}

export async function stopMemberClusters(members: readonly MemberCluster[]): Promise<void> {
  await Promise.all(members.map((m) => m.cluster.stop()));
}

/** Writes each member's registration Secret into the hub (creating the namespace if needed). */
export async function registerMemberClusters(
  hub: KubeClient,
  members: readonly MemberCluster[],
  namespace = MEMBER_CLUSTER_NAMESPACE,
): Promise<void> {
  if (members.length === 0) return;
  await hub.get({ apiVersion: "v1", kind: "Namespace", name: namespace }).catch(async (error: unknown) => {
    if (!isNotFound(error)) throw error;
    await hub.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } }).catch((e: unknown) => {
      if (!isConflict(e)) throw e;
    });
  });
  for (const member of members) {
    const kubeconfig = await readFile(member.cluster.kubeconfigPath, "utf8");
    await hub.apply(
      {
        apiVersion: "v1",
        kind: "Secret",
        type: "Opaque",
        metadata: { name: `${member.name}-kubeconfig`, namespace, labels: { [CLUSTER_NAME_LABELS[0]]: member.name } },
        data: { [KUBECONFIG_KEYS[0]]: Buffer.from(kubeconfig).toString("base64") },
      },
      { fieldManager: "kro-cli", force: true },
    );
  }
}

/** The lines that tell a person where each member is (after the hub's own ready line). */
export function describeMembers(members: readonly MemberCluster[], namespace = MEMBER_CLUSTER_NAMESPACE): string[] {
  if (members.length === 0) return [];
  return [
    `Member clusters (registered in the hub as Secrets in namespace ${namespace}; resources reach them with \`cluster: <name>\`):`,
    ...members.map(
      (m) =>
        `  ${m.name}: Kubernetes ${m.cluster.kubernetesVersion} at ${m.cluster.server}, kubeconfig ${m.cluster.kubeconfigPath}`,
    ),
  ];
}

export interface ClusterSet {
  readonly hub: LocalCluster;
  readonly members: readonly MemberCluster[];
  /** Stops every cluster of the set (at once). */
  stop(): Promise<void>;
}

/**
 * The hub and its members, started at once and registered: either all of them run, or — when
 * one fails to start or to register — none is left running.
 */
export async function startClusterSet(
  count: number,
  hubOptions: LocalClusterOptions & { kubeVersion: string },
): Promise<ClusterSet> {
  const [hubResult, membersResult] = await Promise.allSettled([
    startLocalCluster(hubOptions),
    startMemberClusters(count, {
      kubeVersion: hubOptions.kubeVersion,
      ...(hubOptions.onProgress === undefined ? {} : { onProgress: hubOptions.onProgress }),
    }),
  ]);
  const members = membersResult.status === "fulfilled" ? membersResult.value : [];
  const stopAll = async (): Promise<void> => {
    await Promise.all([
      hubResult.status === "fulfilled" ? hubResult.value.stop() : undefined,
      stopMemberClusters(members),
    ]);
  };
  if (hubResult.status === "rejected" || membersResult.status === "rejected") {
    await stopAll();
    throw hubResult.status === "rejected" ? hubResult.reason : (membersResult as PromiseRejectedResult).reason;
  }
  const hub = hubResult.value;
  if (members.length > 0) {
    hubOptions.onProgress?.(`registering ${members.map((m) => m.name).join(", ")} in the hub`);
    const client = await createKubeClient({ kubeconfig: hub.kubeconfigPath, qps: 0 });
    try {
      await registerMemberClusters(client, members);
    } catch (error) {
      await stopAll();
      throw error;
    } finally {
      client.close();
    }
  }
  return { hub, members, stop: stopAll };
}
