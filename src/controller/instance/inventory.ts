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
 *
 * Where the entries live: the annotation `{"v":2,"key":…,"items":[…]}` holds key and entries (an
 * instance whose CRD cannot keep the status record, or one recorded before it existed); the
 * annotation `{"v":3,"key":…}` holds only the key and says the entries are in
 * `status.kroInventory` (`{"v":3,"items":[…]}`), written together with the status — one write
 * per reconcile fewer (docs/design/controller.md, "Ownership").
 */
import { randomUUID } from "node:crypto";
import { ANNOTATIONS, STATUS_RECORD, compareCodeUnits } from "../../api/index.js";
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
type WireEntry = [
  apiVersion: string,
  kind: string,
  namespace: string,
  name: string,
  uid: string,
  nodeId: string,
  ownership?: "a" | "",
  cluster?: string,
];
interface WireInventory {
  v: 2;
  key: string;
  items: WireEntry[];
}
interface WireKey {
  v: 3;
  key: string;
}
interface WireStatusRecord {
  v: 3;
  items: WireEntry[];
}

export class InventoryFormatError extends Error {
  override readonly name = "InventoryFormatError";
}

export const emptyInventory = (): Inventory => ({ key: undefined, entries: [] });

export function newCreationKey(): string {
  return randomUUID();
}

/** Whether the instance's entries live in its status (annotation `v: 3`) rather than in the annotation. */
export function recordsInStatus(instance: KubeJson): boolean {
  const raw = (instance.metadata as { annotations?: Record<string, string> } | undefined)?.annotations?.[
    ANNOTATIONS.inventory
  ];
  if (raw === undefined) return false;
  try {
    return (JSON.parse(raw) as { v?: unknown } | null)?.v === 3;
  } catch {
    return false;
  }
}

export function readInventory(instance: KubeJson): Inventory {
  const metadata = instance.metadata as { annotations?: Record<string, string> } | undefined;
  const raw = metadata?.annotations?.[ANNOTATIONS.inventory];
  if (raw === undefined) return emptyInventory();
  const parsed = parseJson(raw, `annotation ${ANNOTATIONS.inventory}`);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new InventoryFormatError(`annotation ${ANNOTATIONS.inventory} must be a JSON object`);
  const wire = parsed as Partial<WireInventory> | Partial<WireKey>;
  if (wire.v === 3 && typeof wire.key === "string" && wire.key !== "" && !("items" in wire))
    return { key: wire.key, entries: readStatusRecord(instance) };
  if (wire.v !== 2 || typeof wire.key !== "string" || wire.key === "" || !Array.isArray(wire.items)) {
    throw new InventoryFormatError(
      `annotation ${ANNOTATIONS.inventory} has an unknown layout (expected {"v":2,"key":…,"items":[…]} or {"v":3,"key":…})`,
    );
  }
  return {
    key: wire.key,
    entries: (wire as WireInventory).items.map((item) => readEntry(item, `annotation ${ANNOTATIONS.inventory}`)),
  };
}

/** The entries in `status.kroInventory`; none when the status does not hold them (yet, or any more). */
function readStatusRecord(instance: KubeJson): OwnedChild[] {
  const raw = statusRecordOf(instance);
  if (raw === undefined) return [];
  const where = `status.${STATUS_RECORD.field}`;
  if (typeof raw !== "string") throw new InventoryFormatError(`${where} must be a string`);
  const parsed = parseJson(raw, where) as Partial<WireStatusRecord> | null;
  if (typeof parsed !== "object" || parsed === null || parsed.v !== 3 || !Array.isArray(parsed.items)) {
    throw new InventoryFormatError(`${where} has an unknown layout (expected {"v":3,"items":[…]})`);
  }
  return parsed.items.map((item) => readEntry(item, where));
}

function parseJson(raw: string, where: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new InventoryFormatError(`${where} is not valid JSON; refusing to guess which children this instance owns`);
  }
}

function readEntry(item: unknown, where: string): OwnedChild {
  // A child in another cluster has an eighth element, its cluster (the seventh is then "" or "a").
  const valid =
    Array.isArray(item) &&
    (item.length === 6 ||
      (item.length === 7 && item[6] === "a") ||
      (item.length === 8 && (item[6] === "a" || item[6] === "") && typeof item[7] === "string" && item[7] !== "")) &&
    item.slice(0, 6).every((part) => typeof part === "string") &&
    item[1] !== "" &&
    item[3] !== "" &&
    item[4] !== "";
  if (!valid) throw new InventoryFormatError(`${where} has a malformed entry ${JSON.stringify(item).slice(0, 200)}`);
  const [apiVersion, kind, namespace, name, uid, nodeId, ownership, cluster] = item as WireEntry;
  return {
    apiVersion,
    kind,
    name,
    uid,
    nodeId,
    ...(namespace === "" ? {} : { namespace }),
    ...(cluster === undefined ? {} : { cluster }),
    ownership: ownership === "a" ? "adopted" : "created",
  };
}

export function encodeInventory(inventory: Inventory & { key: string }): string {
  const wire: WireInventory = { v: 2, key: inventory.key, items: wireItems(inventory.entries) };
  return JSON.stringify(wire);
}

/** The annotation of an instance whose entries live in its status: the creation key alone. */
export function encodeKeyOnly(key: string): string {
  const wire: WireKey = { v: 3, key };
  return JSON.stringify(wire);
}

/** The value of `status.kroInventory`. */
export function encodeStatusRecord(entries: readonly OwnedChild[]): string {
  const wire: WireStatusRecord = { v: 3, items: wireItems(entries) };
  return JSON.stringify(wire);
}

/** The raw value of `status.kroInventory` (undefined when absent). */
export const statusRecordOf = (instance: KubeJson): unknown =>
  (instance.status as Record<string, unknown> | undefined)?.[STATUS_RECORD.field];

/** Everything that says what the instance owns, as one string: two copies compare equal when their records do. */
export function recordText(instance: KubeJson): string {
  const annotation =
    (instance.metadata as { annotations?: Record<string, string> } | undefined)?.annotations?.[ANNOTATIONS.inventory] ??
    "";
  const status = statusRecordOf(instance);
  return `${annotation}\n${typeof status === "string" ? status : ""}`;
}

function wireItems(entries: readonly OwnedChild[]): WireEntry[] {
  const items: WireEntry[] = entries.map((e) => {
    const base: WireEntry = [e.apiVersion, e.kind, e.namespace ?? "", e.name, e.uid, e.nodeId];
    if (e.cluster !== undefined) base.push(e.ownership === "adopted" ? "a" : "", e.cluster);
    else if (e.ownership === "adopted") base.push("a");
    return base;
  });
  // Code-unit order (api/text-order.ts): the same record whatever the machine's locale.
  const keyed = items.map((item) => ({ item, key: item.join("\u0000") }));
  keyed.sort((a, b) => compareCodeUnits(a.key, b.key));
  return keyed.map((k) => k.item);
}

/** "Kind namespace/name", as conditions and logs name a child. */
export const describeIdentity = (id: ObjectIdentity): string =>
  `${id.kind} ${id.namespace === undefined ? "" : `${id.namespace}/`}${id.name}${id.cluster === undefined ? "" : ` in cluster ${id.cluster}`}`;

export const childKey = (e: ObjectIdentity): string =>
  JSON.stringify([e.apiVersion, e.kind, e.namespace ?? "", e.name, ...(e.cluster === undefined ? [] : [e.cluster])]);

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
