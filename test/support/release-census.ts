/**
 * What a Helm release looks like on the cluster, for the migration tests: every object the chart
 * made (by Helm's `app.kubernetes.io/instance` label), plus the ReplicaSets and Pods its
 * Deployments own. Taken before and after a migration, two censuses show whether anything was
 * deleted, recreated (a new UID) or restarted (a new ReplicaSet or Pod, a changed pod template).
 */
import assert from "node:assert/strict";
import { kubectlJson } from "./test-cluster.js";

interface Item {
  kind: string;
  metadata: {
    name: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec?: { template?: unknown };
}

export interface ReleaseCensus {
  /** "Kind/name" → UID, for every object of the release (Deployment, Service, Ingress, ConfigMap…). */
  readonly objects: ReadonlyMap<string, string>;
  /** "ReplicaSet/name" and "Pod/name" → UID: the running workload. */
  readonly workload: ReadonlyMap<string, string>;
  /** "Deployment/name" → its spec.template as JSON (a change means a rollout). */
  readonly podTemplates: ReadonlyMap<string, string>;
  readonly items: readonly Item[];
}

const KINDS = "deployments,services,ingresses,configmaps,serviceaccounts,secrets";

export async function releaseCensus(namespace: string, release: string): Promise<ReleaseCensus> {
  const selector = `app.kubernetes.io/instance=${release}`;
  const owned = await kubectlJson<{ items: Item[] }>(["get", KINDS, "-n", namespace, "-l", selector]);
  const running = await kubectlJson<{ items: Item[] }>(["get", "replicasets,pods", "-n", namespace, "-l", selector]);
  const key = (item: Item) => `${item.kind}/${item.metadata.name}`;
  const live = (items: Item[]) => items.filter((i) => i.metadata.deletionTimestamp === undefined);
  return {
    objects: new Map(live(owned.items).map((i) => [key(i), i.metadata.uid])),
    workload: new Map(live(running.items).map((i) => [key(i), i.metadata.uid])),
    podTemplates: new Map(
      owned.items.filter((i) => i.kind === "Deployment").map((i) => [key(i), JSON.stringify(i.spec?.template)]),
    ),
    items: owned.items,
  };
}

/** The same objects with the same UIDs, the same ReplicaSets and Pods, the same pod templates. */
export function assertNothingRecreated(before: ReleaseCensus, after: ReleaseCensus, what: string): void {
  assert.ok(before.objects.size > 0, `${what}: the census found no object of the release`);
  assert.deepEqual(
    [...after.objects].sort(),
    [...before.objects].sort(),
    `${what}: every object kept, none deleted or recreated (same UIDs)`,
  );
  assert.deepEqual(
    [...after.workload].sort(),
    [...before.workload].sort(),
    `${what}: same ReplicaSets and Pods (no rollout, no restart)`,
  );
  assert.deepEqual([...after.podTemplates].sort(), [...before.podTemplates].sort(), `${what}: pod templates unchanged`);
}
