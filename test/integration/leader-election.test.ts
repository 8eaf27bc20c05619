/**
 * Leader election on a real Lease: one leader at a time; a leader that stops hands over at once
 * (it releases the Lease); a leader that is cut off from the API server reports loss after its
 * renew deadline, and a standby takes over only once the Lease has expired.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createKubeClient, type KubeClient } from "../../src/index.js";
import { startLeaderElection, type LeaderElection } from "../../src/controller/index.js";
import { createLogger } from "../../src/observability/index.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";

interface Lease { spec: { holderIdentity?: string; leaseTransitions?: number; leaseDurationSeconds?: number } }

const suffix = randomBytes(3).toString("hex");
const namespace = `lease-${suffix}`;
const name = `kro-leader-${suffix}`;
const logger = createLogger({ level: "silent", name: "leader-election-test", format: "text" });
const timing = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200 } as const;
const getLease = () => kubectlJson<Lease>(["get", "lease", name, "-n", namespace]);
const settledWithin = async (p: Promise<void>, ms: number) => Promise.race([p.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => { resolve(false); }, ms))]);

/** A client that can be cut off from the API server, as by a network partition. */
function partitionable(client: KubeClient): { client: KubeClient; cut(): void } {
  const state = { cut: false };
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => (state.cut ? Promise.reject(new Error("partitioned")) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  return { client: proxy, cut: () => { state.cut = true; } };
}

describe("leader election", { timeout: 60_000 }, () => {
  const clients: KubeClient[] = [];
  const electors: LeaderElection[] = [];
  const elect = async (identity: string, client?: KubeClient) => {
    const c = client ?? await createKubeClient({ kubeconfig: testCluster().kubeconfig });
    if (client === undefined) clients.push(c);
    const e = startLeaderElection({ client: c, logger, namespace, name, identity, ...timing });
    electors.push(e);
    return e;
  };
  before(async () => { await kubectl(["create", "namespace", namespace]); });
  after(async () => {
    await Promise.all(electors.map((e) => e.stop()));
    for (const c of clients) c.close();
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("keeps one leader, and hands over at once when the leader stops", async () => {
    const a = await elect("a");
    await a.acquired;
    const b = await elect("b");
    assert.equal(await settledWithin(b.acquired, 2 * timing.leaseDurationMs), false, "a standby does not take a renewed Lease");
    assert.equal((await getLease()).spec.holderIdentity, "a");

    const stoppedAt = Date.now();
    await a.stop();
    await b.acquired;
    const handover = Date.now() - stoppedAt;
    assert.ok(handover < timing.leaseDurationMs, `released, not expired: took over after ${handover} ms`);
    const lease = await getLease();
    assert.equal(lease.spec.holderIdentity, "b");
    assert.equal(lease.spec.leaseTransitions, 1);
  });

  it("a partitioned leader reports loss; the standby takes over only after the Lease expires", async () => {
    const raw = await createKubeClient({ kubeconfig: testCluster().kubeconfig });
    clients.push(raw);
    const link = partitionable(raw);
    // "b" from the first test still leads; replace it with a leader we can cut off.
    const [, b] = electors;
    assert.ok(b);
    await b.stop();
    const c = await elect("c", link.client);
    await c.acquired;
    const d = await elect("d");
    await eventually(async () => { assert.equal((await getLease()).spec.holderIdentity, "c"); });

    link.cut();
    const cutAt = Date.now();
    await c.lost;
    const lostAfter = Date.now() - cutAt;
    assert.ok(lostAfter >= timing.renewDeadlineMs - timing.retryPeriodMs, `loss reported after the renew deadline (${lostAfter} ms)`);
    await d.acquired;
    const takeover = Date.now() - cutAt;
    assert.ok(takeover >= timing.leaseDurationMs - timing.retryPeriodMs, `the standby waited for expiry (${takeover} ms)`);
    await eventually(async () => { assert.equal((await getLease()).spec.holderIdentity, "d"); });
  });
});
