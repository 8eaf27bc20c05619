// Candidate timing against an in-memory Lease (the real API server is in
// test/integration/leader-election.test.ts): a standby takes a dead leader's Lease right when it
// runs out by its own clock, not at its next retry tick.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeClient, KubeObject } from "../../kube/index.js";
import { createLogger } from "../../observability/index.js";
import { startLeaderElection } from "./leader-election.js";

/** One Lease object, with resourceVersion conflicts, behind the three calls the election makes. */
function leaseStore(initial: KubeObject): { client: KubeClient; current(): KubeObject } {
  let object = { ...initial, metadata: { ...initial.metadata, resourceVersion: "1" } };
  const client = {
    get: () => Promise.resolve(structuredClone(object)),
    create: () => Promise.reject(new Error("exists")),
    replace: (next: KubeObject) => {
      if (next.metadata?.resourceVersion !== object.metadata.resourceVersion) return Promise.reject(Object.assign(new Error("conflict"), { status: 409 }));
      object = { ...next, metadata: { ...next.metadata, resourceVersion: String(Number(object.metadata.resourceVersion) + 1) } };
      return Promise.resolve(structuredClone(object));
    },
  };
  return { client: client as unknown as KubeClient, current: () => object };
}

describe("leader election candidate", () => {
  it("acquires a dead leader's Lease at its expiry, not a retry period later", async () => {
    // Lease 3 s, retry 2 s: ticks at ~2–2.4 s and ~4–4.8 s would take it at ≥ 4 s.
    const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2500, retryPeriodMs: 2000 };
    const store = leaseStore({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l", namespace: "ns" }, spec: { holderIdentity: "dead", leaseDurationSeconds: 3 } });
    const started = performance.now();
    const election = startLeaderElection({ client: store.client, logger: createLogger({ level: "silent", name: "t", format: "text" }), namespace: "ns", name: "l", identity: "standby", ...timing });
    try {
      await election.acquired;
      const took = performance.now() - started;
      assert.ok(took >= timing.leaseDurationMs, `not before expiry (${Math.round(took)} ms)`);
      assert.ok(took < timing.leaseDurationMs + 400, `right at expiry (${Math.round(took)} ms)`);
      assert.equal((store.current().spec as { holderIdentity?: string }).holderIdentity, "standby");
    } finally {
      await election.stop();
    }
  });
});
