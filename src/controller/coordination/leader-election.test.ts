// The executor of the election machine against an in-memory Lease, in fake time (the real API
// server is in test/integration/leader-election.test.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock, settle } from "../../../test/support/manual-clock.js";
import { ApiError, type KubeClient, type KubeObject } from "../../kube/index.js";
import { createLogger } from "../../observability/index.js";
import { startLeaderElection } from "./leader-election.js";

/** One Lease object, with resourceVersion conflicts, behind the three calls the election makes. */
function leaseStore(initial: KubeObject): {
  client: KubeClient;
  current(): KubeObject;
  hang: boolean;
  requests: number;
} {
  let object = { ...initial, metadata: { ...initial.metadata, resourceVersion: "1" } };
  const store = {
    hang: false,
    requests: 0,
    current: () => object,
    client: undefined as unknown as KubeClient,
  };
  const hangOrRun = <T>(run: () => Promise<T>, control?: { signal?: AbortSignal }): Promise<T> => {
    store.requests += 1;
    if (!store.hang) return run();
    return new Promise((_resolve, reject) => {
      control?.signal?.addEventListener("abort", () => {
        reject(new Error("aborted"));
      });
    });
  };
  store.client = {
    get: (_ref: unknown, control?: { signal?: AbortSignal }) =>
      hangOrRun(() => Promise.resolve(structuredClone(object)), control),
    create: () => Promise.reject(new Error("exists")),
    replace: (next: KubeObject, control?: { signal?: AbortSignal }) =>
      hangOrRun(() => {
        if (next.metadata?.resourceVersion !== object.metadata.resourceVersion)
          return Promise.reject(
            new ApiError({ status: 409, verb: "PUT", path: "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l" }),
          );
        object = {
          ...next,
          metadata: { ...next.metadata, resourceVersion: String(Number(object.metadata.resourceVersion) + 1) },
        };
        return Promise.resolve(structuredClone(object));
      }, control),
  } as unknown as KubeClient;
  return store;
}

const logger = createLogger({ level: "silent", name: "t", format: "text" });
const leaseOf = (holderIdentity: string, leaseDurationSeconds = 3): KubeObject => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name: "l", namespace: "ns" },
  spec: { holderIdentity, leaseDurationSeconds },
});
const holderOf = (o: KubeObject) => (o.spec as { holderIdentity?: string }).holderIdentity;

describe("leader election candidate", () => {
  it("acquires a dead leader's Lease at its expiry, not a retry period later", async () => {
    // Lease 3 s, retry 2 s: ticks at 2 s and 4 s would take it at 4 s.
    const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2500, retryPeriodMs: 2000 };
    const clock = new ManualClock();
    const store = leaseStore(leaseOf("dead"));
    const election = startLeaderElection({
      client: store.client,
      logger,
      namespace: "ns",
      name: "l",
      identity: "standby",
      clock,
      random: () => 0,
      ...timing,
    });
    let acquiredAt: number | undefined;
    void election.acquired.then(() => {
      acquiredAt = clock.now();
    });
    const started = clock.now();
    try {
      await clock.advance(2999);
      assert.equal(acquiredAt, undefined, "not before expiry");
      assert.equal(holderOf(store.current()), "dead");
      await clock.advance(100);
      assert.equal(acquiredAt, started + 3000 + 20, "right at expiry (plus the margin)");
      assert.equal(holderOf(store.current()), "standby");
      assert.equal(election.isLeader, true);
    } finally {
      await election.stop();
    }
    assert.equal(holderOf(store.current()), "", "released on stop");
  });

  it("closes the fence at the renew deadline while a renewal hangs, and resolves lost", async () => {
    const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
    const clock = new ManualClock(0);
    const store = leaseStore(leaseOf(""));
    const election = startLeaderElection({
      client: store.client,
      logger,
      namespace: "ns",
      name: "l",
      identity: "a",
      clock,
      random: () => 0,
      ...timing,
    });
    await settle();
    await election.acquired;
    assert.ok(election.fence.open);
    let lostAt: number | undefined;
    void election.lost.then(() => {
      lostAt = clock.now();
    });
    await clock.advance(2_000); // one renewal at 2 s: the fence now holds until 12 s
    assert.equal(store.requests, 4, "get+replace to acquire, get+replace to renew");
    store.hang = true; // the next renewal (at 4 s) hangs on a dead connection
    await clock.advance(9_999);
    assert.equal(lostAt, undefined);
    assert.ok(election.isLeader, "still within the deadline");
    await clock.advance(1);
    assert.equal(lostAt, 12_000, "lost exactly at the last renewal sent + renewDeadline");
    assert.equal(election.fence.open, false);
    assert.equal(election.isLeader, false);
    await election.stop();
  });

  it("a standby never writes while the leader's Lease is fresh", async () => {
    const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
    const clock = new ManualClock(0);
    const store = leaseStore(leaseOf("", 15));
    const a = startLeaderElection({
      client: store.client,
      logger,
      namespace: "ns",
      name: "l",
      identity: "a",
      clock,
      random: () => 0.5,
      ...timing,
    });
    const b = startLeaderElection({
      client: store.client,
      logger,
      namespace: "ns",
      name: "l",
      identity: "b",
      clock,
      random: () => 0.3,
      ...timing,
    });
    await clock.advance(60_000);
    assert.equal(a.isLeader !== b.isLeader, true, "exactly one leader");
    const leader = a.isLeader ? a : b;
    const standby = a.isLeader ? b : a;
    await leader.stop();
    await clock.advance(3_000);
    assert.equal(standby.isLeader, true, "a released Lease is taken within a retry period, not after its duration");
    await standby.stop();
  });
});
