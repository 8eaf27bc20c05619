// The simulated node must stay Ready while the cluster is busy. kube-controller-manager marks a
// node Unknown ("NodeNotReady" event, unreachable taint, its pods NotReady, Deployments
// unavailable) when neither its Lease nor its Ready heartbeat moved for --node-monitor-grace-period
// (50 s). kwok v0.7.0 started without --node-lease-duration-seconds keeps no Lease at all and picks
// its 10-minute "with lease" heartbeat stage, so the node flapped about once a minute (39 times in
// 35 minutes before the fix). This test samples the node once a second while Deployments churn:
// its Lease is kept and renewed with a period well inside the grace period (the headroom, as
// configured — how late a loaded machine renews is shown, not asserted), and it never leaves Ready.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createKubeClient, type KubeClient, type KubeObject } from "../../src/index.js";
import { kubectl, testCluster, testNamespace } from "../support/test-cluster.js";

const NODE = "kwok-node-0";
/** kube-controller-manager's default --node-monitor-grace-period (kind uses it too). */
const GRACE_PERIOD_MS = 50_000;
const WINDOW_MS = Number(process.env.KRO_NODE_HEALTH_WINDOW_MS ?? 40_000);

interface NodeObject extends KubeObject {
  spec?: { podCIDR?: string };
  status?: { conditions?: { type: string; status: string; lastHeartbeatTime?: string }[] };
}
interface LeaseObject extends KubeObject {
  spec?: { renewTime?: string; leaseDurationSeconds?: number };
}
interface EventObject extends KubeObject {
  reason?: string;
  count?: number;
  involvedObject?: { kind?: string; name?: string };
}

interface Sample {
  readonly at: number;
  readonly ready: string;
  /** The newer of the Ready heartbeat and the Lease renewal: what the node lifecycle controller sees. */
  readonly freshest: number;
  readonly leaseRenew: number | undefined;
  readonly leaseDurationSeconds: number | undefined;
}

async function sample(kube: KubeClient): Promise<Sample> {
  const [node, lease] = await Promise.all([
    kube.get<NodeObject>({ apiVersion: "v1", kind: "Node", name: NODE }),
    kube
      .get<LeaseObject>({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        namespace: "kube-node-lease",
        name: NODE,
      })
      .catch(() => undefined),
  ]);
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  const heartbeat = Date.parse(ready?.lastHeartbeatTime ?? "") || 0;
  const leaseRenew = lease?.spec?.renewTime === undefined ? undefined : Date.parse(lease.spec.renewTime);
  return {
    at: Date.now(),
    ready: ready?.status ?? "missing",
    freshest: Math.max(heartbeat, leaseRenew ?? 0),
    leaseRenew,
    leaseDurationSeconds: lease?.spec?.leaseDurationSeconds,
  };
}

/** Total count of NodeNotReady events for the node (events are deduplicated into a count). */
async function nodeNotReadyEvents(kube: KubeClient): Promise<number> {
  const events = await kube.list<EventObject>("v1", "Event", { namespace: "default" });
  return events.items
    .filter((e) => e.reason === "NodeNotReady" && e.involvedObject?.kind === "Node" && e.involvedObject.name === NODE)
    .reduce((sum, e) => sum + (e.count ?? 1), 0);
}

/** Scales a Deployment up and down until stopped: scheduler, kwok and the controllers all work. */
async function churn(ns: string, stopped: () => boolean): Promise<number> {
  await kubectl(["create", "deployment", "load", "-n", ns, "--image=registry.k8s.io/pause:3.10", "--replicas=0"]);
  let rounds = 0;
  while (!stopped()) {
    await kubectl(["scale", "deployment/load", "-n", ns, `--replicas=${rounds % 2 === 0 ? 40 : 0}`]);
    rounds += 1;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
  return rounds;
}

describe("local cluster: the simulated node under load", () => {
  it("keeps its Lease renewed and stays Ready with headroom while Deployments churn", async (t) => {
    assert.equal(testCluster().mode, "full", "node health needs kube-controller-manager and kwok");
    const ns = await testNamespace(t, "node-health");
    const kube = await createKubeClient({ kubeconfig: testCluster().kubeconfig });
    const eventsBefore = await nodeNotReadyEvents(kube);

    const started = Date.now();
    let done = false;
    const load = churn(ns, () => done);
    const samples: Sample[] = [];
    try {
      while (Date.now() - started < WINDOW_MS) {
        samples.push(await sample(kube));
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    } finally {
      done = true;
    }
    const rounds = await load;

    const notReady = samples.filter((s) => s.ready !== "True");
    const maxStalenessMs = Math.max(...samples.map((s) => s.at - s.freshest));
    const renewals = new Set(samples.map((s) => s.leaseRenew).filter((r) => r !== undefined)).size;
    const eventsDuring = (await nodeNotReadyEvents(kube)) - eventsBefore;
    t.diagnostic(
      `${samples.length} samples over ${Math.round((Date.now() - started) / 1000)} s, ${rounds} scale rounds: ` +
        `max staleness ${Math.round(maxStalenessMs / 1000)} s (grace ${GRACE_PERIOD_MS / 1000} s), ${renewals} lease renewals seen, ` +
        `${notReady.length} NotReady samples, ${eventsDuring} NodeNotReady events`,
    );

    assert.ok(rounds >= 4, `the load ran only ${rounds} scale rounds`);
    // kwok renews every leaseDuration/4: with the Lease it keeps, that period must be well inside
    // the grace period (half of it as the bar: a node that is fine only by luck fails here).
    const durations = [...new Set(samples.map((s) => s.leaseDurationSeconds))];
    assert.equal(durations.length, 1, `one Lease duration all along: ${JSON.stringify(durations)}`);
    assert.ok(
      durations[0] !== undefined && (durations[0] * 1000) / 4 < GRACE_PERIOD_MS / 2,
      `Lease duration ${durations[0]} s`,
    );
    // Renewed while we watched, not one renewal left over.
    assert.ok(renewals >= 2, `only ${renewals} distinct lease renewals in ${WINDOW_MS / 1000} s`);
    assert.deepEqual(
      notReady.map((s) => s.ready),
      [],
      "the node left Ready during the window",
    );
    assert.equal(eventsDuring, 0, "NodeNotReady events during the window");
  });

  it("gets a pod CIDR from kind's cluster CIDR (10.244.0.0/16) and gives pods addresses from it", async (t) => {
    const kube = await createKubeClient({ kubeconfig: testCluster().kubeconfig });
    const node = await kube.get<NodeObject>({ apiVersion: "v1", kind: "Node", name: NODE });
    assert.match(node.spec?.podCIDR ?? "", /^10\.244\.\d+\.0\/24$/);
    const ns = await testNamespace(t, "pod-cidr");
    await kubectl(["create", "deployment", "ip", "-n", ns, "--image=registry.k8s.io/pause:3.10", "--replicas=2"]);
    await kubectl(["rollout", "status", "deployment/ip", "-n", ns, "--timeout=60s"]);
    const ips = (await kubectl(["get", "pods", "-n", ns, "-o", "jsonpath={.items[*].status.podIP}"]))
      .trim()
      .split(/\s+/);
    assert.equal(ips.length, 2);
    const prefix = (node.spec?.podCIDR ?? "").replace(/0\/24$/, "");
    for (const ip of ips)
      assert.ok(ip.startsWith(prefix), `pod IP ${ip} is outside the node's pod CIDR ${node.spec?.podCIDR ?? ""}`);
  });
});
