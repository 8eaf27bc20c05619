/**
 * Replicas share the instances of one RGD through shard Leases, on the real API server: two,
 * then three in-process controllers (same RGD label, one leader for the RGD, 8 shards) converge
 * 120 instances; every replica does part of the work; a replica that dies without releasing
 * anything is replaced after its Leases expire; repeated joins and graceful leaves under a
 * stream of spec changes hand shards over; a replica killed and restarted under the same name
 * during a storm of spec changes leaves no instance behind its latest generation. Throughout, per instance: no two replicas inside a
 * reconcile at once on a graceful handover, and never two replicas' writes in flight at once.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createKubeClient, type KubeClient } from "../../src/index.js";
import {
  leaseApiOf,
  startRgdLeadership,
  startShardCoordinator,
  type RunningRgdLeadership,
  type ShardCoordinator,
} from "../../src/controller/index.js";
import { createLogger } from "../../src/observability/index.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import {
  configMapEchoSpec,
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";
import { cuttable } from "../support/cuttable-client.js";

const INSTANCES = 120;
const SHARDS = 8;
const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 } as const;
const suffix = letterSuffix();
const kind = `Shard${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const rgdName = `shards-${suffix}`;
const namespace = `shards-${suffix}`;
const label = { key: "kro-ts.test/controller", value: `shards-${randomBytes(3).toString("hex")}` };
const logger = createLogger({ level: "silent", name: "shards-test", format: "text" });

interface Interval {
  readonly replica: string;
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

/** A replica: a controller, its shard coordinator and leader election on a Lease client that can be cut off. */
interface Replica {
  readonly id: string;
  readonly tc: TestController;
  readonly coordinator: ShardCoordinator;
  readonly election: RunningRgdLeadership;
  readonly leaseClient: KubeClient;
  /** When it first held a shard or the RGD Lease (performance.now()): nothing may be written before. */
  readonly firstTenure: { at: number };
  cut: boolean;
  stopped: boolean;
}

const replicas: Replica[] = [];
const admissions: Interval[] = [];
/** While set, one reconcile in five holds its shard 800 ms longer (a slow reconcile a handover must wait for). */
let slowReconciles = false;
let driver: KubeClient;

async function startReplica(id: string): Promise<Replica> {
  const state = { cut: false };
  const leaseClient = await createKubeClient({
    kubeconfig: testCluster().kubeconfig,
    qps: 0,
    maxRetries: 0,
    requestTimeoutMs: timing.renewDeadlineMs,
  });
  const client = cuttable(leaseClient, state);
  const election = startRgdLeadership({ client, logger, namespace, name: `leader-${suffix}`, identity: id, ...timing });
  const coordinator = startShardCoordinator({
    api: leaseApiOf(client),
    logger,
    namespace,
    group: `instances-${suffix}`,
    identity: id,
    shardCount: SHARDS,
    timing,
  });
  const firstTenure = { at: Infinity };
  const tenureBegins = () => {
    firstTenure.at = Math.min(firstTenure.at, performance.now());
  };
  coordinator.onAcquired(tenureBegins);
  election.onAcquired(tenureBegins);
  coordinator.start();
  // Every admitted reconcile, as an interval, to check that no two replicas are in one at once.
  const shards = {
    shardCount: SHARDS,
    held: () => coordinator.held(),
    onHeldChanged: (listener: () => void) => {
      coordinator.onHeldChanged(listener);
    },
    tenureFence: (shard: number) => coordinator.tenureFence(shard),
    shardOf: (key: string) => coordinator.shardOf(key),
    onAcquired: (listener: (shard: number) => void) => {
      coordinator.onAcquired(listener);
    },
    admit(key: string) {
      const ticket = coordinator.admit(key);
      if (ticket === undefined) return undefined;
      const start = performance.now();
      const finish = () => {
        admissions.push({ replica: id, key, start, end: performance.now() });
        ticket.leave();
      };
      return {
        ...ticket,
        leave() {
          if (slowReconciles && Math.random() < 0.2) setTimeout(finish, 800);
          else finish();
        },
      };
    },
  };
  const tc = await startTestController({ label, requeueIntervalMs: 600_000, sharding: { shards, leader: election } });
  const replica = Object.assign(state, { id, tc, coordinator, election, leaseClient, firstTenure, stopped: false });
  replicas.push(replica);
  return replica;
}

/** Graceful: reconciles finish, fences close, Leases are released. */
async function stopReplica(r: Replica): Promise<void> {
  if (r.stopped) return;
  r.stopped = true;
  await r.tc.stop();
  await r.coordinator.stop();
  await r.election.stop();
  r.leaseClient.close();
}

/** Like a crash, for the others: it stops working and renewing, and releases nothing. */
async function killReplica(r: Replica): Promise<void> {
  r.cut = true;
  await r.tc.controller.stop();
}

const live = () => replicas.filter((r) => !r.stopped && !r.cut);

function rgdYaml(tcLabel: TestController): string {
  return `
${rgdHeader(tcLabel, rgdName)}${configMapEchoSpec(kind, "v0")}`;
}

const instanceName = (i: number) => `inst-${i}`;
const instanceRef = (i: number) => ({ apiVersion: "kro.run/v1alpha1", kind, namespace, name: instanceName(i) });

async function setAll(value: string): Promise<void> {
  for (let i = 0; i < INSTANCES; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, INSTANCES - i) }, (_, j) =>
        driver.patch(instanceRef(i + j), { spec: { value } }),
      ),
    );
  }
}

async function allConverged(value: string, timeout = 90_000): Promise<void> {
  await eventually(
    async () => {
      const list = await kubectlJson<{
        items: { metadata: { name: string }; status?: { state?: string; value?: string } }[];
      }>(["get", plural, "-n", namespace]);
      const behind = list.items
        .filter((o) => o.status?.state !== "ACTIVE" || o.status.value !== value)
        .map((o) => o.metadata.name);
      assert.equal(list.items.length, INSTANCES);
      assert.deepEqual(behind.slice(0, 5), [], `${behind.length} instance(s) not converged to ${value}`);
    },
    { timeout, interval: 500 },
  );
}

/** Every instance's status is for its current generation: observedGeneration and Ready's own stamp. */
async function allAtLatestGeneration(): Promise<void> {
  interface Listed {
    metadata: { name: string; generation: number };
    status?: {
      observedGeneration?: number;
      conditions?: { type: string; status: string; observedGeneration?: number }[];
    };
  }
  const list = await kubectlJson<{ items: Listed[] }>(["get", plural, "-n", namespace]);
  const behind = list.items.filter((o) => {
    const ready = o.status?.conditions?.find((c) => c.type === "Ready");
    return (
      o.status?.observedGeneration !== o.metadata.generation ||
      ready?.status !== "True" ||
      ready.observedGeneration !== o.metadata.generation
    );
  });
  assert.deepEqual(
    behind
      .map((o) => `${o.metadata.name}: generation ${o.metadata.generation}, observed ${o.status?.observedGeneration}`)
      .slice(0, 5),
    [],
    `${behind.length} instance(s) behind`,
  );
}

/** Which instance a write was for (its ConfigMap, itself or its status); Events and Leases are not. */
function instanceOf(path: string): string | undefined {
  const match = new RegExp(`/namespaces/${namespace}/(configmaps|${plural})/([^/]+)`).exec(path);
  return match?.[2]?.replace(/-cm$/, "");
}

/** Pairs of intervals of one key from two replicas that overlap in time. */
function overlapping(intervals: readonly Interval[]): string[] {
  const byKey = new Map<string, Interval[]>();
  for (const i of intervals) byKey.set(i.key, [...(byKey.get(i.key) ?? []), i]);
  const found: string[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    let reach: Interval | undefined;
    for (const i of list) {
      if (reach !== undefined && reach.replica !== i.replica && i.start < reach.end)
        found.push(`${key}: ${reach.replica} until ${reach.end.toFixed(0)}, ${i.replica} from ${i.start.toFixed(0)}`);
      if (reach === undefined || i.end > reach.end) reach = i;
    }
  }
  return found;
}

function writeIntervals(): Interval[] {
  return replicas.flatMap((r) =>
    r.tc.writes().flatMap((w) => {
      const key = instanceOf(w.path);
      const ended = (w as { endedAt?: number }).endedAt ?? 0;
      return key === undefined ? [] : [{ replica: r.id, key, start: ended - w.durationMs, end: ended }];
    }),
  );
}

function instanceWritesBy(r: Replica): number {
  return r.tc.writes().filter((w) => instanceOf(w.path) !== undefined).length;
}

describe("replicas share instances through shard Leases", { timeout: 600_000 }, () => {
  before(async () => {
    driver = await createKubeClient({ kubeconfig: testCluster().kubeconfig, qps: 0 });
    await kubectl(["create", "namespace", namespace]);
    await startReplica("a");
    await startReplica("b");
    const [a] = replicas;
    assert.ok(a);
    await kubectl(["apply", "-f", "-"], rgdYaml(a.tc));
    await waitRgdActive(rgdName);
  });
  after(async () => {
    for (const r of replicas) await stopReplica(r);
    driver.close();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("two replicas converge 120 instances, each doing part of the work, never two at once", async () => {
    const docs = Array.from(
      { length: INSTANCES },
      (_, i) =>
        `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${instanceName(i)}, namespace: ${namespace} }\nspec: { value: v1 }\n`,
    ).join("---\n");
    await kubectl(["apply", "-f", "-"], docs);
    await allConverged("v1");
    const [a, b] = replicas;
    assert.ok(a && b);
    assert.deepEqual(
      [...a.coordinator.held(), ...b.coordinator.held()].sort((x, y) => x - y),
      Array.from({ length: SHARDS }, (_, i) => i),
      "every shard held once",
    );
    assert.equal(a.coordinator.held().length, SHARDS / 2);
    assert.ok(
      instanceWritesBy(a) > INSTANCES / 4 && instanceWritesBy(b) > INSTANCES / 4,
      `both worked: a ${instanceWritesBy(a)}, b ${instanceWritesBy(b)} writes`,
    );
    assert.equal([a, b].filter((r) => r.election.isLeader).length, 1, "one RGD leader");
    assert.deepEqual(overlapping(admissions), []);
    assert.deepEqual(overlapping(writeIntervals()), []);
  });

  it("a third replica joins: shards rebalance without two replicas in one instance at once", async () => {
    const c = await startReplica("c");
    await eventually(
      () => {
        const counts = live().map((r) => r.coordinator.held().length);
        assert.deepEqual(
          counts.reduce((x, y) => x + y, 0),
          SHARDS,
        );
        assert.ok(Math.min(...counts) >= 2, JSON.stringify(counts));
      },
      { timeout: 30_000 },
    );
    // Before its first tenure (a shard or the RGD Lease) the newcomer only read: warm caches, no writes.
    const early = c.tc.requests.filter((r) => r.verb !== "GET" && r.endedAt - r.durationMs < c.firstTenure.at);
    assert.deepEqual(
      early.map((r) => `${r.verb} ${r.path}`),
      [],
      "writes before any tenure",
    );
    assert.ok(
      c.tc.requests.some((r) => r.endedAt < c.firstTenure.at),
      "it was reading before its first tenure",
    );
    const before = instanceWritesBy(c);
    await setAll("v2");
    await allConverged("v2");
    assert.ok(instanceWritesBy(c) > before, "the newcomer reconciled its share");
    assert.deepEqual(overlapping(admissions), []);
    assert.deepEqual(overlapping(writeIntervals()), []);
  });

  it("a replica that dies without releasing is replaced after its Leases expire; everything converges", async () => {
    // The leader dies, so the RGD's leadership moves too.
    const victim = live().find((r) => r.election.isLeader) ?? live()[0];
    assert.ok(victim);
    const orphaned = victim.coordinator.held();
    await killReplica(victim);
    const diedAt = Date.now();
    await setAll("v3");
    await eventually(
      () => {
        const held = live().flatMap((r) => r.coordinator.held());
        for (const shard of orphaned) assert.ok(held.includes(shard), `shard ${shard} taken over`);
      },
      { timeout: 30_000 },
    );
    const takeover = Date.now() - diedAt;
    assert.ok(takeover >= timing.leaseDurationMs - 500, `taken over only after expiry (${takeover} ms)`);
    await allConverged("v3");
    await eventually(
      () => {
        assert.equal(live().filter((r) => r.election.isLeader).length, 1, "a new RGD leader");
      },
      { timeout: 30_000 },
    );
    assert.deepEqual(overlapping(writeIntervals()), []);
  });

  it("repeated joins and graceful leaves under changing specs and slow reconciles: no double writers, always converging", async () => {
    slowReconciles = true;
    // Each join and each leave happens while the replicas are busy with a spec change.
    for (let round = 0; round < 3; round++) {
      const changing = setAll(`w${round}a`);
      const joined = await startReplica(`j${round}`);
      await changing;
      await allConverged(`w${round}a`);
      const changingAgain = setAll(`w${round}b`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await stopReplica(joined);
      await changingAgain;
      await allConverged(`w${round}b`);
    }
    slowReconciles = false;
    // Reconciles that started after the crash above are all graceful handovers.
    assert.deepEqual(overlapping(admissions.filter((i) => !replicas.some((r) => r.cut && r.id === i.replica))), []);
    assert.deepEqual(overlapping(writeIntervals()), []);
  });

  it("a replica killed and restarted under the same name during a storm of spec changes: every instance reaches its latest generation", async () => {
    const victim = live().find((r) => r.coordinator.held().length > 0);
    assert.ok(victim);
    const shardsBefore = victim.coordinator.held();
    const storm = (async () => {
      for (let k = 0; k < 4; k++) await setAll(`r${k}`);
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await killReplica(victim);
    // Same identity: its Leases still name it, so it takes its shards back at once, with no
    // other replica ever taking them over (and queueing their instances) in between.
    const restarted = await startReplica(victim.id);
    await storm;
    await allConverged("r3");
    await eventually(allAtLatestGeneration, { timeout: 60_000, interval: 500 });
    assert.deepEqual(
      restarted.coordinator.held().filter((s) => shardsBefore.includes(s)).length > 0,
      true,
      "the restarted replica took its shards back",
    );
  });
});
