import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideShard, ShardSlot, type ShardObservation } from "./shard-slot.js";

const seen = (slot: ShardSlot, o: Partial<ShardObservation>): ShardObservation => ({
  phase: slot.phase,
  inFlight: slot.inFlight,
  identity: "me",
  holder: undefined,
  wanted: true,
  expired: false,
  ...o,
});

describe("shard slot", () => {
  it("admits only while held with an open fence; the fence closes at last renewal sent + renew deadline", () => {
    let now = 0;
    const slot = new ShardSlot(3, () => now, 10_000);
    assert.equal(slot.admit(), undefined, "free: nothing admitted");
    assert.deepEqual(
      decideShard(seen(slot, { holder: "other" })),
      { action: "wait" },
      "held by another: wait for release or expiry",
    );
    assert.deepEqual(
      decideShard(seen(slot, { holder: "other", expired: true })),
      { action: "acquire" },
      "expired by our clock",
    );
    assert.deepEqual(decideShard(seen(slot, { holder: "" })), { action: "acquire" }, "free");
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
    assert.deepEqual(
      decideShard(seen(slot, { holder: "me", wanted: false })),
      { action: "renew", transition: "drain" },
      "moved elsewhere: drain, still renewing while a reconcile runs",
    );
    slot.drain();
    assert.equal(slot.admit(), undefined, "draining admits nothing");
    assert.deepEqual(decideShard(seen(slot, { holder: "me", wanted: true })), {
      action: "renew",
      transition: "resume",
    });
    slot.resume();
    assert.equal(slot.phase, "held", "given back before it was released");
    slot.drain();
    slot.leave(running);
    assert.deepEqual(decideShard(seen(slot, { holder: "me", wanted: false })), { action: "release" });
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

  it("a tenure whose Lease names another holder ends at once; one not listed yet, or still ours, goes on", () => {
    const slot = new ShardSlot(0, () => 0, 10_000);
    slot.acquired(0);
    assert.deepEqual(decideShard(seen(slot, { holder: "b" })), {
      action: "lose",
      why: "the shard's Lease is held by b",
    });
    assert.deepEqual(decideShard(seen(slot, { holder: "" })), {
      action: "lose",
      why: "the shard's Lease is held by nobody",
    });
    assert.deepEqual(decideShard(seen(slot, { holder: undefined })), { action: "renew" });
    assert.deepEqual(decideShard(seen(slot, { holder: "me" })), { action: "renew" });
  });

  it("a free shard recorded as ours (a restart under the same name) is taken at once, without waiting for expiry", () => {
    const slot = new ShardSlot(0, () => 0, 10_000);
    assert.deepEqual(decideShard(seen(slot, { holder: "me", expired: false })), { action: "acquire" });
    assert.deepEqual(
      decideShard(seen(slot, { holder: "me", wanted: false })),
      { action: "wait" },
      "not ours by the assignment: left alone",
    );
  });
});
