/**
 * `kro controller --shards N`: replicas share the instances of every RGD. Starts the shard
 * coordinator and the RGD leader election, each on a client of its own (own rate limit and
 * sockets, no transport retries, request deadline = renew deadline) so Lease traffic never
 * queues behind reconciles. The controller's clients carry no global fence in this mode: each
 * instance write goes through its shard tenure's fence, each RGD write through the leader's.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import {
  leaseApiOf,
  startRgdLeadership,
  startShardCoordinator,
  type ControllerSharding,
  type LeaseTiming,
  type RunningRgdLeadership,
  type ShardCoordinator,
} from "../../controller/index.js";
import { createKubeClient, type KubeClientOptions } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";

export interface ShardingSettings {
  readonly shards: number;
  readonly replicaId: string;
  readonly namespace: string;
  /** The leader Lease's name; shard and member Leases are named after it. */
  readonly leaseName: string;
  readonly lease: LeaseTiming;
}

export interface RunningSharding {
  readonly sharding: ControllerSharding;
  readonly leadership: RunningRgdLeadership;
  readonly coordinator: ShardCoordinator;
  /** Call after the controller stopped: closes every fence, releases the Leases. */
  stop(): Promise<void>;
}

/** Unique per process (a pod's hostname is reused by its next incarnation in a StatefulSet). */
export function defaultReplicaId(): string {
  return `${hostname()}-${randomBytes(3).toString("hex")}`;
}

export async function startSharding(
  settings: ShardingSettings,
  connection: KubeClientOptions,
  logger: Logger,
): Promise<RunningSharding> {
  const leaseClient = (qps: number) =>
    createKubeClient({
      ...connection,
      qps,
      burst: 2 * qps,
      maxRetries: 0,
      requestTimeoutMs: settings.lease.renewDeadlineMs,
    });
  const electionClient = await leaseClient(5);
  // Per round: one list, one member renewal, one write per held shard.
  const shardClient = await leaseClient(Math.max(10, settings.shards * 2));
  // Losing the RGD Lease ends only that tenure: the replica campaigns again and keeps its shards.
  const leadership = startRgdLeadership({
    client: electionClient,
    logger,
    ...settings.lease,
    namespace: settings.namespace,
    name: settings.leaseName,
    identity: settings.replicaId,
  });
  const coordinator = startShardCoordinator({
    api: leaseApiOf(shardClient),
    logger: logger.child({ component: "shards" }),
    namespace: settings.namespace,
    group: `${settings.leaseName}-instances`,
    identity: settings.replicaId,
    shardCount: settings.shards,
    timing: settings.lease,
  });
  coordinator.start();
  return {
    sharding: { shards: coordinator, leader: leadership },
    leadership,
    coordinator,
    async stop() {
      await coordinator.stop();
      await leadership.stop();
      electionClient.close();
      shardClient.close();
    },
  };
}
