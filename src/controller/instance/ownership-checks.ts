/**
 * Glue between an instance and the ownership rules: who the instance is, the children found by
 * owner identity (the second source beside the inventory), and the per-entry context removal
 * decisions need.
 */
import { ANNOTATIONS, LABELS } from "../../api/index.js";
import type { CompiledGraph } from "../../graph/index.js";
import type { KubeObject } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import { identityOf, type KubeJson } from "../../runtime/index.js";
import type { AdoptionPolicy } from "./apply-outcome.js";
import type { EventSink } from "../context/index.js";
import { recordEvent } from "../context/index.js";
import { describeIdentity, type Inventory, type InventoryDelta, type OwnedChild } from "./inventory.js";
import { validateInventory } from "./inventory-validation.js";
import type { InstanceIdentity } from "./ownership.js";
import type { RemovalContext } from "./removal-plan.js";
import type { ServedGraph } from "../context/index.js";

export function ownerIdentity(served: ServedGraph, instance: KubeObject): InstanceIdentity {
  const namespace = instance.metadata?.namespace;
  return {
    uid: instance.metadata?.uid ?? "",
    group: served.instance.group,
    kind: served.instance.kind,
    namespace: namespace === undefined || namespace === "" ? undefined : namespace,
    name: instance.metadata?.name ?? "",
  };
}

/**
 * Cached objects that carry this instance's UID label *and* its creation key but are not in the
 * inventory: created by us, with the record lost to a crash before it was written. Pure.
 */
export function recoverUnrecorded(candidates: readonly KubeJson[], inventory: Inventory): InventoryDelta {
  if (inventory.key === undefined) return { recorded: [], removedUids: [] };
  const known = new Set(inventory.entries.map((e) => e.uid));
  const recorded: OwnedChild[] = [];
  for (const object of candidates) {
    const metadata = (object.metadata ?? {}) as {
      uid?: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    if (
      metadata.uid === undefined ||
      known.has(metadata.uid) ||
      metadata.annotations?.[ANNOTATIONS.creationKey] !== inventory.key
    )
      continue;
    // identityOf keeps the target cluster: a child in another cluster is recorded with it.
    const identity = identityOf(object);
    if (identity === undefined) continue;
    recorded.push({
      ...identity,
      uid: metadata.uid,
      nodeId: metadata.labels?.[LABELS.nodeId] ?? "",
      ownership: "created",
    });
  }
  return { recorded, removedUids: [] };
}

/** Per-entry removal context: entries the graph could not have produced need the creation key. */
export function validatedRemovalContext(
  graph: CompiledGraph,
  owner: InstanceIdentity,
  inventory: Inventory,
  policy: AdoptionPolicy,
): (entry: OwnedChild) => RemovalContext {
  const { valid } = validateInventory(graph, owner.namespace, inventory.entries);
  const trusted = new Set(valid.map((e) => e.uid));
  return (entry) => ({ owner, creationKey: inventory.key, policy, validated: trusted.has(entry.uid) });
}

/** Records we dropped without touching their object: logged, an Event, and this pass's condition. */
export function reportRefused(
  ctx: EventSink,
  instance: KubeObject,
  refused: readonly { entry: OwnedChild; reason: string }[],
  errors: Record<string, string>,
  log: Logger,
): void {
  for (const { entry, reason } of refused) {
    const message = `inventory entry ${describeIdentity(entry)} was not acted on and is dropped from the record: ${reason}`;
    log.warn({ entry: describeIdentity(entry), reason }, "inventory entry refused");
    void recordEvent(ctx, instance, "InventoryEntryRefused", message, "Warning");
    errors[entry.nodeId === "" ? "inventory" : entry.nodeId] = message;
  }
}
