/**
 * The gate of a collection's `propagateWhen` (KREP-006): from each item's state — does it exist,
 * was it last written as its current desired object (`updated()`), does its readyWhen hold
 * (`ready()`) — which items may take their desired object now. Pure and stateless: everything it
 * needs is read from the live items every pass, so a restart decides the same.
 *
 * An item already updated is always allowed: writing it again changes nothing the gate paces and
 * keeps drift correction. Creation is gated like an update, as KREP-006 decides ("Should create
 * and update be treated the same? Yes").
 */
import type { PropagationRule } from "../graph/index.js";

export interface ItemState {
  readonly exists: boolean;
  readonly updated: boolean;
  readonly ready: boolean;
}

export interface GateDecision {
  /** Per item, in collection order: may it be written with its desired object this pass. */
  readonly allowed: readonly boolean[];
  readonly updated: number;
  /** Updated items whose readyWhen does not hold yet. */
  readonly notReady: number;
  /** Items not updated and not allowed. */
  readonly held: number;
}

function holds(rule: PropagationRule, index: number, items: readonly ItemState[], updated: number): boolean {
  switch (rule.kind) {
    case "linear":
      return index < (Math.floor(updated / rule.batch) + 1) * rule.batch;
    case "exponential":
      return index < 2 ** Math.ceil(Math.log2(updated + 1));
    case "updatedReady":
      return items.every((item) => !item.updated || item.ready);
  }
}

export function propagationGate(rules: readonly PropagationRule[], items: readonly ItemState[]): GateDecision {
  const updated = items.filter((item) => item.updated).length;
  const notReady = items.filter((item) => item.updated && !item.ready).length;
  const allowed = items.map((item, index) => item.updated || rules.every((rule) => holds(rule, index, items, updated)));
  return { allowed, updated, notReady, held: allowed.filter((a) => !a).length };
}

/** What the instance says while items are held back. */
export function gateMessage(nodeId: string, decision: GateDecision): string {
  const total = decision.allowed.length;
  const waiting =
    decision.notReady > 0
      ? `waiting for ${decision.notReady} to become ready`
      : `${decision.held} held by propagateWhen`;
  return `collection "${nodeId}": ${decision.updated} of ${total} updated, ${waiting}`;
}
