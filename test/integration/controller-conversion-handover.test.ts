/**
 * The conversion webhook through leader handovers (docs/api-versions.md, "Several replicas"):
 * two controllers with leader election serve the webhook behind one address — a TCP forwarder
 * standing in for the Service kube-proxy would give, since the local cluster has none — and
 * share its certificate through a Secret. Readers read every instance at the version that is
 * not stored, so each read is a conversion, while the leader stops and the standby takes over,
 * three times: no read fails, reads go on during each handover, the new leader converges
 * instances, and the replicas never rewrite the CRD's clientConfig (both advertise the same).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createKubeClient, WriteFence, type KubeClient, type KubeObject } from "../../src/index.js";
import { startLeaderElection, warmStandby, type LeaderElection } from "../../src/controller/index.js";
import { createLogger } from "../../src/observability/index.js";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";
import { freePort, TcpForwarder } from "../support/tcp-forwarder.js";

const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 } as const;
const suffix = letterSuffix();
const kind = `Hand${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const crdName = `${plural}.kro.run`;
const rgdName = `handover-${suffix}`;
const namespace = `handover-${suffix}`;
const secret = { namespace, name: `conversion-${suffix}` };
const label = { key: "kro-ts.test/controller", value: `handover-${suffix}` };
const logger = createLogger({ level: "silent", name: "conversion-handover-test", format: "text" });
const names = ["a", "b", "c", "d"];
const ROUNDS = 3;
const READERS = 4;

const rgd = `
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${label.key}: "${label.value}" }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      image: string | default="nginx"
      port: integer | default=80
      team: string | default="web"
    versions:
      - name: v1beta1
        storage: true
        spec:
          image: string | default="nginx"
          ports:
            http: integer | default=80
          owner:
            team: string | default="web"
        conversion:
          toHub:
            spec:
              port: \${self.spec.ports.http}
              team: \${self.spec.owner.team}
          fromHub:
            spec:
              ports:
                http: \${self.spec.port}
              owner:
                team: \${self.spec.team}
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-config" }
        data:
          port: \${string(schema.spec.port)}
`;

interface Replica {
  readonly id: string;
  readonly port: number;
  readonly tc: TestController;
  readonly election: LeaderElection;
  readonly electionClient: KubeClient;
  readonly elected: { at: number };
  /** Set once its leadership was lost (a renewal missed on a loaded machine): the CLI's process then exits. */
  readonly lost: { value: boolean };
}

let forwarder: TcpForwarder;
let reader: KubeClient;
const ports: number[] = [];
const replicas = new Map<string, Replica>();

async function startReplica(id: string, port: number): Promise<Replica> {
  const electionClient = await createKubeClient({
    kubeconfig: testCluster().kubeconfig,
    qps: 0,
    maxRetries: 0,
    requestTimeoutMs: timing.renewDeadlineMs,
  });
  const fence = new WriteFence();
  const election = startLeaderElection({
    client: electionClient,
    logger,
    namespace,
    name: `leader-${suffix}`,
    identity: id,
    fence,
    ...timing,
  });
  const elected = { at: Infinity };
  void election.acquired.then(() => {
    elected.at = performance.now();
  });
  const lost = { value: false };
  void election.lost.then(() => {
    lost.value = true;
  });
  const tc = await startTestController({
    label,
    logName: id,
    requeueIntervalMs: 600_000,
    fence,
    sharding: warmStandby(election),
    // Every replica: its own listen port, the forwarder's address advertised, the certificate shared.
    conversionWebhook: { host: "127.0.0.1", port, advertise: { host: "127.0.0.1", port: forwarder.port }, secret },
  });
  const replica = { id, port, tc, election, electionClient, elected, lost };
  replicas.set(id, replica);
  return replica;
}

/** A graceful stop, in the CLI's order: the controller (its webhook drains last), then the Lease. */
async function stopReplica(r: Replica): Promise<void> {
  await r.tc.stop();
  await r.election.stop();
  r.electionClient.close();
  replicas.delete(r.id);
}

interface Read {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly error?: string;
}

/** Readers reading every instance at v1alpha1 (stored at v1beta1: each read is a conversion) until stopped. */
function startReaders(): { stop: () => Promise<Read[]> } {
  const reads: Read[] = [];
  let stopped = false;
  const readOnce = async (i: number): Promise<void> => {
    if (i % 2 === 0) {
      const list = await reader.list<KubeObject & { spec?: { port?: number } }>("kro.run/v1alpha1", kind, {
        namespace,
      });
      assert.equal(list.items.length, names.length);
      for (const item of list.items) assert.equal(typeof item.spec?.port, "number", "converted to v1alpha1");
    } else {
      const one = await reader.get<KubeObject & { spec?: { port?: number } }>({
        apiVersion: "kro.run/v1alpha1",
        kind,
        namespace,
        name: names[i % names.length] ?? "a",
      });
      assert.equal(one.apiVersion, "kro.run/v1alpha1");
      assert.equal(typeof one.spec?.port, "number", "converted to v1alpha1");
    }
  };
  const loops = Array.from({ length: READERS }, async (_, n) => {
    for (let i = n; !stopped; i++) {
      const startedAt = performance.now();
      try {
        await readOnce(i);
        reads.push({ startedAt, endedAt: performance.now() });
      } catch (error) {
        reads.push({
          startedAt,
          endedAt: performance.now(),
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  });
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return reads;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const crd = () =>
  kubectlJson<
    KubeObject & { spec: { conversion?: { webhook?: { clientConfig?: { url?: string; caBundle?: string } } } } }
  >(["get", "crd", crdName]);
const configPort = async (name: string) =>
  (await kubectlJson<{ data?: { port?: string } }>(["get", "-n", namespace, "configmap", `${name}-config`])).data?.port;

/** What the new leader did for `name` since it was elected: the message of a round that did not converge. */
async function whyNotConverged(leader: Replica, name: string, electedAt: number): Promise<string> {
  const live = await reader
    .get<
      KubeObject & {
        spec?: { port?: number };
        status?: { state?: string; conditions?: { type?: string; status?: string; message?: string }[] };
      }
    >({
      apiVersion: "kro.run/v1alpha1",
      kind,
      namespace,
      name,
    })
    .then(
      (o) =>
        JSON.stringify({
          port: o.spec?.port,
          generation: o.metadata?.generation,
          state: o.status?.state,
          conditions: o.status?.conditions?.map((c) => `${c.type}=${c.status}: ${c.message ?? ""}`),
        }),
      (error: unknown) => `unreadable: ${error instanceof Error ? error.message : String(error)}`,
    );
  const requests = new Map<string, number>();
  for (const r of leader.tc.requests.filter((r) => r.endedAt >= electedAt)) {
    const key = `${r.verb} ${r.path.split("?")[0] ?? ""} ${r.status}`;
    requests.set(key, (requests.get(key) ?? 0) + 1);
  }
  return [
    `${leader.id} leads: ${leader.election.isLeader}`,
    `instance ${name} at v1alpha1: ${live}`,
    `evaluations of it by ${leader.id}: ${leader.tc.evaluated.filter((e) => e === `${namespace}/${name}`).length}`,
    `requests by ${leader.id} since elected: ${JSON.stringify([...requests])}`,
  ].join("; ");
}

describe("the conversion webhook through leader handovers", { timeout: 300_000 }, () => {
  before(async () => {
    await kubectl(["create", "namespace", namespace]);
    ports.push(await freePort(), await freePort());
    forwarder = await TcpForwarder.start(ports);
    reader = await createKubeClient({ kubeconfig: testCluster().kubeconfig, qps: 0, maxRetries: 0 });
    const a = await startReplica("a", ports[0] ?? 0);
    await a.election.acquired;
    await startReplica("b", ports[1] ?? 0);
    await kubectl(["apply", "-f", "-"], rgd);
    await eventually(
      async () => {
        const live = await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", rgdName]);
        assert.equal(live.status?.state, "Active", JSON.stringify(live.status));
      },
      { timeout: 90_000 },
    );
    for (const [i, name] of names.entries()) {
      await kubectl(
        ["apply", "-n", namespace, "-f", "-"],
        `apiVersion: kro.run/v1beta1\nkind: ${kind}\nmetadata: { name: ${name} }\nspec: { ports: { http: ${8081 + i} } }\n`,
      );
    }
    await eventually(
      async () => {
        for (const [i, name] of names.entries()) assert.equal(await configPort(name), String(8081 + i));
      },
      { timeout: 60_000 },
    );
  });
  after(async () => {
    for (const r of [...replicas.values()]) await stopReplica(r);
    reader.close();
    await forwarder.close();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", crdName, "--wait=false", "--ignore-not-found"]);
  });

  it("both replicas advertise one address with one certificate, and the CRD is left alone", async () => {
    const live = await crd();
    const clientConfig = live.spec.conversion?.webhook?.clientConfig;
    assert.equal(clientConfig?.url, `https://127.0.0.1:${forwarder.port}/convert`);
    const shared = await kubectlJson<{ data: Record<string, string> }>(["get", "secret", "-n", namespace, secret.name]);
    assert.equal(clientConfig.caBundle, shared.data["ca.crt"], "the CRD trusts the shared CA");
    // Both replicas serve, both are warm: a quiet interval costs the CRD no write.
    const versions = new Set<string>();
    for (let i = 0; i < 15; i++) {
      versions.add((await crd()).metadata?.resourceVersion ?? "");
      await sleep(200);
    }
    assert.deepEqual([...versions], [live.metadata?.resourceVersion], "no CRD write while quiet");
  });

  it(`answers every read through ${ROUNDS} handovers, and each new leader converges instances`, async (t) => {
    const crdBefore = await crd();
    for (let round = 1; round <= ROUNDS; round++) {
      // A replica that lost its Lease ends, as the CLI's process does, and is started again (its
      // election never campaigns twice: its `acquired` would stay resolved from the first time).
      for (const r of [...replicas.values()].filter((r) => r.lost.value)) {
        await stopReplica(r);
        await startReplica(r.id, r.port);
      }
      await eventually(
        () => {
          assert.ok(
            [...replicas.values()].some((r) => r.election.isLeader),
            "a leader",
          );
        },
        { timeout: 30_000 },
      );
      const leader = [...replicas.values()].find((r) => r.election.isLeader);
      const standby = [...replicas.values()].find((r) => !r.election.isLeader);
      assert.ok(leader && standby, "one leader, one standby");
      const readers = startReaders();
      // A failed round must not leave readers looping after the client is closed: the file would never end.
      t.after(() => readers.stop());
      await sleep(1000);
      const stopAt = performance.now();
      await stopReplica(leader);
      const stoppedAt = performance.now();
      await standby.election.acquired;
      const electedAt = standby.elected.at;
      // The new leader works: a patch at v1beta1 reaches the child.
      const name = names[round % names.length] ?? "a";
      await kubectl([
        "patch",
        "-n",
        namespace,
        `${plural}.v1beta1.kro.run`,
        name,
        "--type=merge",
        "-p",
        JSON.stringify({ spec: { ports: { http: 9000 + round } } }),
      ]);
      await eventually(
        async () => {
          assert.equal(await configPort(name), String(9000 + round));
        },
        { timeout: 30_000 },
      ).catch(async (error: unknown) => {
        throw new Error(
          `${error instanceof Error ? error.message : String(error)}; ${await whyNotConverged(standby, name, electedAt)}`,
        );
      });
      await sleep(500);
      const reads = await readers.stop();
      const failed = reads.filter((r) => r.error !== undefined);
      const during = reads.filter((r) => r.endedAt >= stopAt && r.startedAt <= electedAt);
      const afterStop = reads.filter((r) => r.startedAt >= stoppedAt && r.error === undefined);
      t.diagnostic(
        `round ${round}: ${leader.id} → ${standby.id}; ${reads.length} reads, ${during.length} during the handover (${Math.round(electedAt - stopAt)} ms), ${afterStop.length} after the old leader was gone; connections taken ${JSON.stringify([...forwarder.taken])}, refused by all ${forwarder.dropped}`,
      );
      // The residual race (docs/design/api-versions.md): the API server can write a request into a
      // connection the stopping replica's side has just closed — one read in ~1,000, in one of four
      // clean-clone CI runs. Its HTTP/2 client then closes that connection, failing the other
      // requests in flight on it too ("client connection force closed": 3 reads once).
      // At most one such lost connection per handover — no more failures than readers in flight,
      // all in flight at one instant (the last to start began before the first to fail ended) —
      // and never another error.
      const connectionLost = (error: string) =>
        /broken pipe|connection reset by peer|\bEOF\b|client connection force closed/.test(error);
      const errors = failed.map((r) => r.error ?? "");
      const lostTogether =
        failed.length === 0 || Math.max(...failed.map((r) => r.startedAt)) <= Math.min(...failed.map((r) => r.endedAt));
      assert.ok(
        errors.every(connectionLost) && lostTogether && failed.length <= READERS,
        `round ${round}: every read answered (at most one lost connection): ${JSON.stringify(failed.map((r) => ({ error: r.error, startedAt: Math.round(r.startedAt - stopAt) })))}`,
      );
      assert.ok(during.length > 0, `round ${round}: reads went on during the handover`);
      assert.ok(afterStop.length > 0, `round ${round}: the remaining replica answered alone`);
      // The stopped replica comes back as the standby, on its own port behind the forwarder.
      await startReplica(leader.id, leader.port);
    }
    const crdAfter = await crd();
    assert.equal(
      crdAfter.metadata?.resourceVersion,
      crdBefore.metadata?.resourceVersion,
      "no new leader rewrote the CRD",
    );
  });
});
