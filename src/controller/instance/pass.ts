/**
 * The state one instance reconcile carries from step to step: the instance as last read or
 * written, the inventory as this pass knows it, the delta it has learned (what it saw created and
 * gone, written once at the end), the overlay of objects it wrote (so a re-evaluation sees them
 * before the informers do) and what failed. Steps read and extend it; nothing here does I/O.
 */
import type { KubeObject } from "../../kube/index.js";
import type { InstanceEvaluation, KubeJson, ObservedLookup } from "../../runtime/index.js";
import type { Overlay } from "../watches/index.js";
import type { AdoptionPolicy } from "./apply-outcome.js";
import { applyDelta, emptyDelta, mergeDeltas, type Inventory, type InventoryDelta } from "./inventory.js";
import type { InstanceIdentity } from "./ownership.js";
import { readKey, type GateRules } from "./write-gate.js";

export class InstancePass {
  instance: KubeObject;
  /** Whether `instance` was read from the API server in this pass (not only from the cache). */
  confirmed: boolean;
  inventory: Inventory & { key: string };
  /** Everything this pass learned about what we own; the record write at the end applies it. */
  delta: InventoryDelta = emptyDelta();
  /** The latest evaluation; the plan step sets it before any other step reads it. */
  evaluation!: InstanceEvaluation;
  /** Identity key → the object we just wrote (null: just removed). */
  readonly overlay: Overlay = new Map();
  /** The cluster as the caches hold it, with this pass's own writes laid over it. */
  readonly lookup: ObservedLookup;
  /** Identity key → the desired object as this pass last wrote it (written again only if it changes). */
  readonly writtenAs = new Map<string, KubeJson>();
  /** Identity keys of objects a refused write left alone: not retried in this pass. */
  readonly blocked = new Set<string>();
  /** Apply and removal failures by node id (retried with backoff). */
  readonly applyErrors: Record<string, string> = {};
  /** Node ids of applyErrors the server caused (no answer, 5xx, 429): retried at once when it is back. */
  readonly serverFailures = new Set<string>();
  /** What the write gate judges every apply by: where children may go, and what the requester must hold. */
  gate!: GateRules;
  /** Reads the read gate refused (readKey): the evaluation sees nothing there. */
  readonly hiddenReads = new Set<string>();
  /** Children refused before any write, by node id (not retried until something changes). */
  readonly refusedNodes: Record<string, string> = {};

  constructor(
    /** The instance's queue key (instanceKeyOf). */
    readonly instanceKey: string,
    managed: { instance: KubeObject; inventory: Inventory & { key: string }; confirmed: boolean },
    readonly owner: InstanceIdentity,
    readonly policy: AdoptionPolicy,
    lookupWith: (overlay: Overlay) => ObservedLookup,
  ) {
    this.instance = managed.instance;
    this.confirmed = managed.confirmed;
    this.inventory = managed.inventory;
    const seen = lookupWith(this.overlay);
    // What the read gate refused is not there, for every evaluation of this pass.
    this.lookup = {
      get: (identity) => (this.hiddenReads.has(readKey(identity)) ? undefined : seen.get(identity)),
      list: (query) => (this.hiddenReads.has(readKey(query)) ? [] : seen.list(query)),
    };
  }

  /** Adds what a step learned to the delta and to the inventory this pass works from. */
  learn(delta: InventoryDelta): void {
    this.delta = mergeDeltas(this.delta, delta);
    this.inventory = { key: this.inventory.key, entries: applyDelta(this.inventory, delta) };
  }

  /** The instance was read again: its record is the base, with everything learned so far on top. */
  rebase(fresh: KubeObject, inventory: Inventory): void {
    this.instance = fresh;
    this.confirmed = true;
    this.inventory = { key: inventory.key ?? this.inventory.key, entries: applyDelta(inventory, this.delta) };
  }

  get failed(): boolean {
    return Object.keys(this.applyErrors).length > 0;
  }
}
