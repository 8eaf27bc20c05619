/**
 * Counts for the ownership fault stories: after a run, list every ConfigMap carrying a kind's
 * owner label and every hand-made object a story planted, and compare with the instances that
 * still exist. Orphans are children of instances that are gone (or that their instance's record
 * does not name); foreign objects touched are hand-made objects whose UID or data changed.
 * With `clusters` (docs/design/clusters.md) the ConfigMaps of every member cluster are counted
 * too, each named `cluster/name`, and a child is recorded only if its record names that cluster.
 */
import type { KubeClient, KubeObject } from "../../src/index.js";
import { recordItems } from "./instance-record.js";

export interface Census {
  readonly orphans: string[];
  readonly unrecorded: string[];
  readonly foreignTouched: string[];
  readonly notReady: string[];
}

export interface Planted {
  /** The member cluster it was planted in (a key of `clusters`); absent: the hub. */
  readonly cluster?: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly data: Record<string, string>;
}

export async function takeCensus(
  client: KubeClient,
  options: {
    apiVersion: string;
    kind: string;
    namespace: string;
    childrenPerInstance?: number;
    planted: readonly Planted[];
    clusters?: Readonly<Record<string, KubeClient>>;
  },
): Promise<Census> {
  const instances = (await client.list(options.apiVersion, options.kind, { namespace: options.namespace }))
    .items as (KubeObject & { status?: { state?: string } })[];
  const byName = new Map(instances.map((i) => [i.metadata?.name ?? "", i]));
  const where: [string, KubeClient][] = [["", client], ...Object.entries(options.clusters ?? {})];
  const orphans: string[] = [];
  const unrecorded: string[] = [];
  const recorded = new Set(instances.flatMap((i) => recordOf(i).map((r) => `${r.cluster}/${r.uid}`)));
  for (const [cluster, clusterClient] of where) {
    const children = (
      await clusterClient.list("v1", "ConfigMap", {
        namespace: options.namespace,
        labelSelector: `kro.run/instance-kind=${options.kind}`,
      })
    ).items;
    for (const child of children) {
      const owner = child.metadata?.labels?.["kro.run/instance-name"] ?? "";
      if (options.planted.some((p) => p.uid === child.metadata?.uid)) continue;
      const name = cluster === "" ? (child.metadata?.name ?? "") : `${cluster}/${child.metadata?.name ?? ""}`;
      if (!byName.has(owner)) orphans.push(name);
      else if (!recorded.has(`${cluster}/${child.metadata?.uid ?? ""}`)) unrecorded.push(name);
    }
  }
  const foreignTouched: string[] = [];
  for (const planted of options.planted) {
    const plantedIn = planted.cluster === undefined ? client : options.clusters?.[planted.cluster];
    if (plantedIn === undefined)
      throw new Error(
        `planted object ${planted.name} names cluster ${planted.cluster ?? ""}, which the census was not given`,
      );
    const live = (await plantedIn
      .get({ apiVersion: "v1", kind: "ConfigMap", namespace: planted.namespace, name: planted.name })
      .catch(() => undefined)) as (KubeObject & { data?: Record<string, string> }) | undefined;
    if (live?.metadata?.uid !== planted.uid || canonical(live.data) !== canonical(planted.data))
      foreignTouched.push(planted.cluster === undefined ? planted.name : `${planted.cluster}/${planted.name}`);
  }
  const notReady = instances
    .filter(
      (i) =>
        i.metadata?.deletionTimestamp === undefined &&
        (i.status?.state !== "ACTIVE" ||
          (options.childrenPerInstance !== undefined && recordOf(i).length !== options.childrenPerInstance)),
    )
    .map((i) => i.metadata?.name ?? "");
  return { orphans, unrecorded, foreignTouched, notReady };
}

const canonical = (data: Record<string, string> | undefined): string =>
  JSON.stringify(Object.entries(data ?? {}).sort(([a], [b]) => a.localeCompare(b)));

/** The instance's record: each child's UID and cluster ("" for the hub; the entry's eighth element). */
function recordOf(instance: KubeObject): { uid: string; cluster: string }[] {
  return recordItems(instance).map((item) => ({ uid: item[4] ?? "", cluster: item[7] ?? "" }));
}

export async function plantLookalikes(
  client: KubeClient,
  namespace: string,
  count: number,
  labels: Record<string, string>,
  cluster?: string,
): Promise<Planted[]> {
  const planted: Planted[] = [];
  for (let i = 0; i < count; i++) {
    const data = { owner: "user", n: String(i) };
    const made = await client.create<KubeObject>({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `lookalike-${i}`, namespace, labels },
      data,
    });
    planted.push({
      ...(cluster === undefined ? {} : { cluster }),
      namespace,
      name: `lookalike-${i}`,
      uid: made.metadata?.uid ?? "",
      data,
    });
  }
  return planted;
}
