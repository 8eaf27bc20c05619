/**
 * Reading an instance's record of what it owns the way a test must, independently of the
 * controller's code: the annotation `internal.kro.run/inventory` holds key and entries (layout 2, a
 * bare list in layout 1), or only the key (layout 3) with the entries in `status.kroInventory`.
 */
import type { KubeClient, KubeObject } from "../../src/kube/index.js";

const ANNOTATION = "internal.kro.run/inventory";

/** Whether the entries live in status (layout 3). */
export function recordsInStatus(instance: KubeObject): boolean {
  const raw = instance.metadata?.annotations?.[ANNOTATION];
  return raw !== undefined && (JSON.parse(raw) as { v?: number }).v === 3;
}

/** The text that holds the entries: the status record or the annotation ("" when neither). */
export function recordText(instance: KubeObject): string {
  if (recordsInStatus(instance)) return (instance.status as { kroInventory?: string } | undefined)?.kroInventory ?? "";
  return instance.metadata?.annotations?.[ANNOTATION] ?? "";
}

/** The entries, in their wire form: [apiVersion, kind, namespace, name, uid, nodeId, ownership?, cluster?]. */
export function recordItems(instance: KubeObject): string[][] {
  const text = recordText(instance);
  if (text === "") return [];
  const parsed = JSON.parse(text) as { items?: string[][] } | string[][];
  return Array.isArray(parsed) ? parsed : (parsed.items ?? []);
}

/** Writes entries back where the instance keeps them, as a tenant (annotation) or someone with status rights would. */
export async function writeRecordItems(client: KubeClient, instance: KubeObject, items: string[][]): Promise<void> {
  const ref = {
    apiVersion: instance.apiVersion ?? "",
    kind: instance.kind ?? "",
    name: instance.metadata?.name ?? "",
    ...(instance.metadata?.namespace === undefined ? {} : { namespace: instance.metadata.namespace }),
  };
  if (recordsInStatus(instance)) {
    await client.patch(ref, { status: { kroInventory: JSON.stringify({ v: 3, items }) } }, { subresource: "status" });
    return;
  }
  const record = JSON.parse(instance.metadata?.annotations?.[ANNOTATION] ?? "{}") as Record<string, unknown>;
  await client.patch(ref, { metadata: { annotations: { [ANNOTATION]: JSON.stringify({ ...record, items }) } } });
}
