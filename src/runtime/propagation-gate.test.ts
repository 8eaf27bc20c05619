// The propagateWhen gate step by step: a simulated collection of items whose readiness the test
// flips, walked pass by pass as the controller would (write the allowed items, observe, decide again).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PropagationRule } from "../graph/index.js";
import { gateMessage, propagationGate, type ItemState } from "./propagation-gate.js";

const linear = (batch: number): PropagationRule => ({
  kind: "linear",
  batch,
  text: `linearlyUpdated(r, rs, ${batch})`,
});
const exponential: PropagationRule = { kind: "exponential", text: "exponentiallyUpdated(r, rs)" };
const settled: PropagationRule = { kind: "updatedReady", text: "rs.all(x, !x.updated() || x.ready())" };

const old = (n: number): ItemState[] =>
  Array.from({ length: n }, () => ({ exists: true, updated: false, ready: true }));
const allowedIndexes = (rules: readonly PropagationRule[], items: readonly ItemState[]): number[] =>
  propagationGate(rules, items).allowed.flatMap((a, i) => (a ? [i] : []));

/** One pass: every allowed item is written (updated, not ready until `ready` says so). */
function pass(rules: readonly PropagationRule[], items: ItemState[]): number[] {
  const decision = propagationGate(rules, items);
  const written: number[] = [];
  decision.allowed.forEach((allowed, i) => {
    const item = items[i] as ItemState;
    if (allowed && !item.updated) {
      items[i] = { exists: true, updated: true, ready: false };
      written.push(i);
    }
  });
  return written;
}

describe("propagationGate", () => {
  it("linearlyUpdated(…, 2) alone admits the next batch once the previous one is updated (KREP-006's formula)", () => {
    const items = old(5);
    assert.deepEqual(allowedIndexes([linear(2)], items), [0, 1]);
    assert.deepEqual(pass([linear(2)], items), [0, 1]);
    // updated, not ready: linearlyUpdated counts updated items only
    assert.deepEqual(pass([linear(2)], items), [2, 3]);
    assert.deepEqual(pass([linear(2)], items), [4]);
    assert.deepEqual(pass([linear(2)], items), []);
  });

  it("with the readiness rule, a wave of 2 waits until both are ready, and never more than 2 are updated and not ready", () => {
    const rules = [linear(2), settled];
    const items = old(20);
    const waves: number[][] = [];
    for (let round = 0; round < 40 && items.some((i) => !i.updated); round++) {
      const written = pass(rules, items);
      if (written.length > 0) waves.push(written);
      const inFlight = items.filter((i) => i.updated && !i.ready).length;
      assert.ok(inFlight <= 2, `round ${round}: ${inFlight} updated and not ready`);
      // nothing moves while the wave is not ready
      assert.deepEqual(pass(rules, items), []);
      assert.match(
        gateMessage("regions", propagationGate(rules, items)),
        /waiting for \d+ to become ready|of 20 updated/,
      );
      for (const [i, item] of items.entries()) if (item.updated) items[i] = { ...item, ready: true };
    }
    assert.equal(waves.length, 10);
    assert.ok(waves.every((w, k) => w.length === 2 && w[0] === 2 * k));
    assert.equal(propagationGate(rules, items).held, 0);
  });

  it("says how many are updated and what it waits for", () => {
    const items: ItemState[] = [
      { exists: true, updated: true, ready: true },
      { exists: true, updated: true, ready: false },
      { exists: true, updated: false, ready: true },
      { exists: false, updated: false, ready: false },
    ];
    const decision = propagationGate([linear(2), settled], items);
    assert.deepEqual(decision.allowed, [true, true, false, false]);
    assert.equal(
      gateMessage("regions", decision),
      'collection "regions": 2 of 4 updated, waiting for 1 to become ready',
    );
  });

  it("exponentiallyUpdated admits 1, 2, 4, 8 … items", () => {
    const items = old(12);
    const waves: number[][] = [];
    for (let round = 0; round < 10; round++) {
      const written = pass([exponential], items);
      if (written.length === 0) break;
      waves.push(written);
    }
    assert.deepEqual(
      waves.map((w) => w.length),
      [1, 1, 2, 4, 4],
    );
    // u=0: index < 1; u=1: < 2; u=2: < 4; u=4: < 8; u=8: < 16
    assert.deepEqual(waves[0], [0]);
    assert.deepEqual(waves[2], [2, 3]);
  });

  it("gates creation like an update, and never holds an item already updated", () => {
    const fresh: ItemState[] = Array.from({ length: 4 }, () => ({ exists: false, updated: false, ready: false }));
    assert.deepEqual(allowedIndexes([linear(1), settled], fresh), [0]);
    const late: ItemState[] = [
      { exists: true, updated: false, ready: false },
      { exists: true, updated: true, ready: false },
      { exists: true, updated: true, ready: true },
    ];
    // the not-ready updated item blocks the others but is itself written again (drift correction)
    assert.deepEqual(allowedIndexes([settled], late), [1, 2]);
  });

  it("no rules: everything at once", () => {
    assert.deepEqual(allowedIndexes([], old(3)), [0, 1, 2]);
  });
});
