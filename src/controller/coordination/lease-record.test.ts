import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ObservedLease, validateLeaseTiming } from "./lease-record.js";

describe("lease record", () => {
  it("judges expiry by when this process saw the record change, not by the holder's renewTime", () => {
    let now = 1_000;
    const seen = new ObservedLease(() => now);
    // A renewTime far in the past (a skewed clock elsewhere) does not make the lease expired.
    seen.observe({ holderIdentity: "other", leaseDurationSeconds: 15, renewTime: "2000-01-01T00:00:00.000000Z" });
    assert.equal(seen.heldByOther("me"), true);
    now += 14_000;
    seen.observe({ holderIdentity: "other", leaseDurationSeconds: 15, renewTime: "2000-01-01T00:00:00.000000Z" });
    assert.equal(seen.heldByOther("me"), true, "unchanged record: the clock keeps running from the first sight");
    now += 1_001;
    assert.equal(seen.heldByOther("me"), false, "15 s without a change: expired");
    seen.observe({ holderIdentity: "other", leaseDurationSeconds: 15, renewTime: "2000-01-01T00:00:02.000000Z" });
    assert.equal(seen.heldByOther("me"), true, "a renewal restarts the clock");
    seen.observe({ holderIdentity: "", leaseDurationSeconds: 1 });
    assert.equal(seen.heldByOther("me"), false, "released");
    seen.observe({ holderIdentity: "me", leaseDurationSeconds: 15 });
    assert.equal(seen.heldByOther("me"), false);
  });

  it("tells how long until the record seen runs out", () => {
    let now = 0;
    const seen = new ObservedLease(() => now);
    assert.equal(seen.msUntilExpiry(), -Infinity, "never seen");
    seen.observe({ holderIdentity: "other", leaseDurationSeconds: 15 });
    now = 14_000;
    assert.equal(seen.msUntilExpiry(), 1_000);
    seen.observe({ holderIdentity: "other", leaseDurationSeconds: 15 });
    assert.equal(seen.msUntilExpiry(), 1_000, "the same record: the clock does not restart");
  });

  it("rejects timings that would let two leaders overlap, as client-go does", () => {
    validateLeaseTiming({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    assert.throws(() => {
      validateLeaseTiming({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    }, /leaseDuration \(10000 ms\) must be greater than renewDeadline/);
    assert.throws(() => {
      validateLeaseTiming({ leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 });
    }, /renewDeadline \(2000 ms\) must be greater than 1.2 × retryPeriod/);
    assert.throws(() => {
      validateLeaseTiming({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 });
    }, /retryPeriodMs must be a positive duration/);
    assert.throws(() => {
      validateLeaseTiming({ leaseDurationMs: 800, renewDeadlineMs: 500, retryPeriodMs: 100 });
    }, /at least 1 s/);
  });
});
