/**
 * Counts for the ownership fault stories: after a run, list every ConfigMap carrying a kind's
 * owner label and every hand-made object a story planted, and compare with the instances that
 * still exist. Orphans are children of instances that are gone (or that their instance's record
 * does not name); foreign objects touched are hand-made objects whose UID or data changed.
 */
import type { KubeClient, KubeObject } from "../../src/index.js";

export interface Census {
  readonly orphans: string[];
  readonly unrecorded: string[];
  readonly foreignTouched: string[];
  readonly notReady: string[];
}

export interface Planted {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly data: Record<string, string>;
}

export async function takeCensus(client: KubeClient, options: { apiVersion: string; kind: string; namespace: string; childrenPerInstance?: number; planted: readonly Planted[] }): Promise<Census> {
  const instances = (await client.list(options.apiVersion, options.kind, { namespace: options.namespace })).items as (KubeObject & { status?: { state?: string } })[];
  const byName = new Map(instances.map((i) => [i.metadata?.name ?? "", i]));
  const children = (await client.list("v1", "ConfigMap", { namespace: options.namespace, labelSelector: `kro.run/instance-kind=${options.kind}` })).items;
  const orphans: string[] = [];
  const unrecorded: string[] = [];
  const recordedUids = new Set(instances.flatMap((i) => recordedUidsOf(i)));
  for (const child of children) {
    const owner = child.metadata?.labels?.["kro.run/instance-name"] ?? "";
    if (options.planted.some((p) => p.uid === child.metadata?.uid)) continue;
    if (!byName.has(owner)) orphans.push(child.metadata?.name ?? "");
    else if (!recordedUids.has(child.metadata?.uid ?? "")) unrecorded.push(child.metadata?.name ?? "");
  }
  const foreignTouched: string[] = [];
  for (const planted of options.planted) {
    const live = await client.get({ apiVersion: "v1", kind: "ConfigMap", namespace: planted.namespace, name: planted.name }).catch(() => undefined) as (KubeObject & { data?: Record<string, string> }) | undefined;
    if (live?.metadata?.uid !== planted.uid || canonical(live.data) !== canonical(planted.data)) foreignTouched.push(planted.name);
  }
  const notReady = instances.filter((i) => i.metadata?.deletionTimestamp === undefined && (i.status?.state !== "ACTIVE" || (options.childrenPerInstance !== undefined && recordedUidsOf(i).length !== options.childrenPerInstance))).map((i) => i.metadata?.name ?? "");
  return { orphans, unrecorded, foreignTouched, notReady };
}

const canonical = (data: Record<string, string> | undefined): string => JSON.stringify(Object.entries(data ?? {}).sort(([a], [b]) => a.localeCompare(b)));

function recordedUidsOf(instance: KubeObject): string[] {
  const raw = instance.metadata?.annotations?.["internal.kro.run/inventory"];
  if (raw === undefined) return [];
  const parsed = JSON.parse(raw) as { items?: string[][] } | string[][];
  const items = Array.isArray(parsed) ? parsed : parsed.items ?? [];
  return items.map((item) => item[4] ?? "");
}

export async function plantLookalikes(client: KubeClient, namespace: string, count: number, labels: Record<string, string>): Promise<Planted[]> {
  const planted: Planted[] = [];
  for (let i = 0; i < count; i++) {
    const data = { owner: "user", n: String(i) };
    const made = await client.create<KubeObject>({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `lookalike-${i}`, namespace, labels }, data });
    planted.push({ namespace, name: `lookalike-${i}`, uid: made.metadata?.uid ?? "", data });
  }
  return planted;
}
