/**
 * The instance's inventory: every child this instance created or adopted, by UID, kept in one
 * annotation on the instance, plus the instance's creation key. Pure: reading, encoding and
 * merging only; the preconditioned write lives in record.ts.
 *
 * The creation key is a random secret-ish token written to the instance *before* its first child
 * is created, and stamped on every child we create. If the process dies between creating a child
 * and recording its UID, the child still carries the key and the instance's identity, so the
 * next reconcile (or the deletion) finds it and records it: a crash cannot leak a child, and an
 * object someone made by hand — even with our labels copied onto it — never carries the key.
 */
import { randomUUID } from "node:crypto";
import { ANNOTATIONS } from "../../api/index.js";
import type { InventoryEntry, KubeJson, ObjectIdentity } from "../../runtime/index.js";

/** How we came to own a child: we created it, or the user asked us to adopt an existing object. */
export type Ownership = "created" | "adopted";

export interface OwnedChild extends InventoryEntry {
  readonly ownership: Ownership;
}

export interface Inventory {
  /** Absent only on inventories written before creation keys existed (read, then upgraded). */
  readonly key: string | undefined;
  readonly entries: readonly OwnedChild[];
}

/** Compact wire form: the annotation must stay far below the 256 KiB metadata limit. */
type WireEntry = [apiVersion: string, kind: string, namespace: string, name: string, uid: string, nodeId: string, ownership?: "a" | "", cluster?: string];
interface WireInventory { v: 2; key: string; items: WireEntry[] }

export class InventoryFormatError extends Error {
  override readonly name = "InventoryFormatError";
}

export const emptyInventory = (): Inventory => ({ key: undefined, entries: [] });

export function newCreationKey(): string {
  return randomUUID();
}

export function readInventory(instance: KubeJson): Inventory {
  const metadata = instance.metadata as { annotations?: Record<string, string> } | undefined;
  const raw = metadata?.annotations?.[ANNOTATIONS.inventory];
  if (raw === undefined) return emptyInventory();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new InventoryFormatError(`annotation ${ANNOTATIONS.inventory} is not valid JSON; refusing to guess which children this instance owns`);
  }
  // Version 1 (a bare list, no creation key) is still read, and upgraded on the next write.
  if (Array.isArray(parsed)) return { key: undefined, entries: parsed.map(readEntry) };
  if (typeof parsed !== "object" || parsed === null) throw new InventoryFormatError(`annotation ${ANNOTATIONS.inventory} must be a JSON object`);
  const wire = parsed as Partial<WireInventory>;
  if (wire.v !== 2 || typeof wire.key !== "string" || wire.key === "" || !Array.isArray(wire.items)) {
    throw new InventoryFormatError(`annotation ${ANNOTATIONS.inventory} has an unknown layout (expected {"v":2,"key":…,"items":[…]})`);
  }
  return { key: wire.key, entries: wire.items.map(readEntry) };
}

function readEntry(item: unknown): OwnedChild {
  // A child in another cluster has an eighth element, its cluster (the seventh is then "" or "a").
  const valid = Array.isArray(item) && (item.length === 6 || (item.length === 7 && item[6] === "a") || (item.length === 8 && (item[6] === "a" || item[6] === "") && typeof item[7] === "string" && item[7] !== ""))
    && item.slice(0, 6).every((part) => typeof part === "string") && item[1] !== "" && item[3] !== "" && item[4] !== "";
  if (!valid) throw new InventoryFormatError(`annotation ${ANNOTATIONS.inventory} has a malformed entry ${JSON.stringify(item).slice(0, 200)}`);
  const [apiVersion, kind, namespace, name, uid, nodeId, ownership, cluster] = item as WireEntry;
  return { apiVersion, kind, name, uid, nodeId, ...(namespace === "" ? {} : { namespace }), ...(cluster === undefined ? {} : { cluster }), ownership: ownership === "a" ? "adopted" : "created" };
}

export function encodeInventory(inventory: Inventory & { key: string }): string {
  const items: WireEntry[] = inventory.entries.map((e) => {
    const base: WireEntry = [e.apiVersion, e.kind, e.namespace ?? "", e.name, e.uid, e.nodeId];
    if (e.cluster !== undefined) base.push(e.ownership === "adopted" ? "a" : "", e.cluster);
    else if (e.ownership === "adopted") base.push("a");
    return base;
  });
  items.sort((a, b) => a.join("\u0000").localeCompare(b.join("\u0000")));
  const wire: WireInventory = { v: 2, key: inventory.key, items };
  return JSON.stringify(wire);
}

/** "Kind namespace/name", as conditions and logs name a child. */
export const describeIdentity = (id: ObjectIdentity): string => `${id.kind} ${id.namespace === undefined ? "" : `${id.namespace}/`}${id.name}${id.cluster === undefined ? "" : ` in cluster ${id.cluster}`}`;

export const childKey = (e: ObjectIdentity): string => JSON.stringify([e.apiVersion, e.kind, e.namespace ?? "", e.name, ...(e.cluster === undefined ? [] : [e.cluster])]);

/** What one reconcile learned: children to record (by identity) and UIDs no longer ours. */
export interface InventoryDelta {
  readonly recorded: readonly OwnedChild[];
  readonly removedUids: readonly string[];
}

export const emptyDelta = (): InventoryDelta => ({ recorded: [], removedUids: [] });

/**
 * Applies a delta to an inventory. Used both on the copy this reconcile started from and — after a
 * write conflict — on the fresh copy another writer left, so two writers never erase each other's
 * records: a delta only adds what it saw created and removes what it saw gone.
 */
export function applyDelta(inventory: Inventory, delta: InventoryDelta): OwnedChild[] {
  const removed = new Set(delta.removedUids);
  const byKey = new Map(inventory.entries.filter((e) => !removed.has(e.uid)).map((e) => [childKey(e), e]));
  for (const entry of delta.recorded) byKey.set(childKey(entry), entry);
  return [...byKey.values()];
}

export function mergeDeltas(a: InventoryDelta, b: InventoryDelta): InventoryDelta {
  return { recorded: [...a.recorded, ...b.recorded], removedUids: [...a.removedUids, ...b.removedUids] };
}
