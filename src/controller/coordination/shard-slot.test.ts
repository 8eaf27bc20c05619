import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ShardSlot } from "./shard-slot.js";

describe("shard slot", () => {
  it("admits only while held with an open fence; the fence closes at last renewal sent + renew deadline", () => {
    let now = 0;
    const slot = new ShardSlot(3, () => now, 10_000);
    assert.equal(slot.admit(), undefined, "free: nothing admitted");
    assert.equal(slot.next({ wanted: true, takeable: false }), "wait", "held by another: wait for release or expiry");
    assert.equal(slot.next({ wanted: true, takeable: true }), "acquire");
    const fence = slot.acquired(0);
    now = 5_000;
    slot.renewed(4_000);
    now = 13_999;
    assert.equal(slot.admit(), fence);
    slot.leave(fence);
    now = 14_001;
    assert.equal(slot.admit(), undefined, "past 4 000 + 10 000: lapsed");
    assert.equal(slot.phase, "free");
    assert.equal(fence.closed, true, "a lapsed tenure's fence is closed for good");
    slot.renewed(14_000);
    assert.equal(fence.open, false, "a late renewal answer does not reopen it");
  });

  it("drains: no new reconciles, released only when those in flight are done, fence closed before the release", () => {
    const slot = new ShardSlot(0, () => 0, 10_000);
    slot.acquired(0);
    const running = slot.admit();
    assert.ok(running);
    slot.drain();
    assert.equal(slot.admit(), undefined, "draining admits nothing");
    assert.equal(slot.next({ wanted: false, takeable: true }), "renew", "still renewing while a reconcile runs");
    slot.resume();
    assert.equal(slot.phase, "held", "given back before it was released");
    slot.drain();
    slot.leave(running);
    assert.equal(slot.next({ wanted: false, takeable: true }), "release");
    slot.releasing();
    assert.equal(running.closed, true, "closed before the Lease is written free");
    slot.released();
    assert.equal(slot.phase, "free");
  });

  it("a new tenure has a new fence; leaving with an old tenure's fence does not count", () => {
    const slot = new ShardSlot(0, () => 0, 10_000);
    const first = slot.acquired(0);
    const old = slot.admit();
    assert.ok(old);
    slot.lose("taken");
    const second = slot.acquired(0);
    assert.notEqual(first, second);
    assert.equal(first.closed, true);
    slot.admit();
    slot.leave(old);
    assert.equal(slot.inFlight, 1);
  });
});
