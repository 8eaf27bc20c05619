/**
 * The instance's inventory: every child this instance created, by UID, kept in one annotation on
 * the instance. Prune and delete act only on these entries, with a UID precondition, so an object
 * someone else created — even with our labels copied onto it — is never deleted (kro #1153).
 */
import { ANNOTATIONS } from "../api/index.js";
import type { InventoryEntry, KubeJson } from "../runtime/index.js";

/** Compact wire form: the annotation must stay far below the 256 KiB metadata limit. */
type WireEntry = [apiVersion: string, kind: string, namespace: string, name: string, uid: string, nodeId: string];

export function readInventory(instance: KubeJson): InventoryEntry[] {
  const metadata = instance.metadata as { annotations?: Record<string, string> } | undefined;
  const raw = metadata?.annotations?.[ANNOTATIONS.inventory];
  if (raw === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`annotation ${ANNOTATIONS.inventory} is not valid JSON; refusing to guess which children this instance owns`);
  }
  if (!Array.isArray(parsed)) throw new Error(`annotation ${ANNOTATIONS.inventory} must be a JSON list`);
  return parsed.map((item: unknown) => {
    if (!Array.isArray(item) || item.length !== 6 || !item.every((part) => typeof part === "string")) {
      throw new Error(`annotation ${ANNOTATIONS.inventory} has a malformed entry ${JSON.stringify(item)}`);
    }
    const [apiVersion, kind, namespace, name, uid, nodeId] = item as WireEntry;
    return { apiVersion, kind, name, uid, nodeId, ...(namespace === "" ? {} : { namespace }) };
  });
}

export function encodeInventory(entries: readonly InventoryEntry[]): string {
  const wire: WireEntry[] = entries.map((e) => [e.apiVersion, e.kind, e.namespace ?? "", e.name, e.uid, e.nodeId]);
  wire.sort((a, b) => a.join("\u0000").localeCompare(b.join("\u0000")));
  return JSON.stringify(wire);
}

/** Adds or replaces entries by identity (a recreated object gets its new UID). */
export function mergeInventory(entries: readonly InventoryEntry[], added: readonly InventoryEntry[]): InventoryEntry[] {
  const key = (e: InventoryEntry) => JSON.stringify([e.apiVersion, e.kind, e.namespace ?? "", e.name]);
  const byKey = new Map(entries.map((e) => [key(e), e]));
  for (const entry of added) byKey.set(key(entry), entry);
  return [...byKey.values()];
}

export function removeFromInventory(entries: readonly InventoryEntry[], removed: readonly InventoryEntry[]): InventoryEntry[] {
  const uids = new Set(removed.map((e) => e.uid));
  return entries.filter((e) => !uids.has(e.uid));
}
