/**
 * `kro controller --shards` as users run it: two processes share 20 instances (both hold shard
 * Leases, every instance converges), and on SIGTERM each exits 0 having released its Leases.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { eventually } from "../support/eventually.js";
import { startControllerProcess, type ControllerProcess } from "../support/controller-process.js";
import { kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { configMapEchoSpec, letterSuffix } from "../support/controller.js";

const suffix = letterSuffix();
const kind = `Proc${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const namespace = `shardproc-${suffix}`;
const label = `kro-ts.test/controller=shardproc-${randomBytes(3).toString("hex")}`;
const leaseId = `shardproc-${suffix}`;
const INSTANCES = 20;

interface LeaseList {
  items: { metadata: { name: string; labels?: Record<string, string> }; spec: { holderIdentity?: string } }[];
}
const shardLeases = async () =>
  (await kubectlJson<LeaseList>(["get", "leases", "-n", namespace])).items.filter(
    (l) => l.metadata.labels?.["kro.run/shard-role"] === "shard",
  );

describe("kro controller --shards (processes)", { timeout: 240_000 }, () => {
  const processes: ControllerProcess[] = [];
  before(async () => {
    await kubectl(["create", "namespace", namespace]);
    for (const id of ["p1", "p2"]) {
      processes.push(
        await startControllerProcess(testCluster().kubeconfig, [
          "--shards",
          "4",
          "--replica-id",
          id,
          "--rgd-selector",
          label,
          "--leader-election-namespace",
          namespace,
          "--leader-election-id",
          leaseId,
          "--leader-elect-lease-duration",
          "3s",
          "--leader-elect-renew-deadline",
          "2s",
          "--leader-elect-retry-period",
          "300ms",
        ]),
      );
    }
  });
  after(async () => {
    for (const p of processes) if (p.alive()) await p.kill();
    await kubectl(["delete", "rgd", `shardproc-${suffix}`, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("two processes share the instances and release their Leases on SIGTERM", async () => {
    const [key, value] = label.split("=");
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: shardproc-${suffix}
  labels: { ${key ?? ""}: "${value ?? ""}" }
spec:${configMapEchoSpec(kind, "x")}`,
    );
    await eventually(
      async () => {
        const holders = new Set((await shardLeases()).map((l) => l.spec.holderIdentity));
        assert.deepEqual([...holders].sort(), ["p1", "p2"], "both processes hold shards");
      },
      { timeout: 60_000 },
    );
    const docs = Array.from(
      { length: INSTANCES },
      (_, i) =>
        `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: i-${i}, namespace: ${namespace} }\nspec: { value: v${i} }\n`,
    ).join("---\n");
    await kubectl(["apply", "-f", "-"], docs);
    await eventually(
      async () => {
        const list = await kubectlJson<{ items: { metadata: { name: string }; status?: { state?: string } }[] }>([
          "get",
          plural,
          "-n",
          namespace,
        ]);
        assert.equal(list.items.filter((o) => o.status?.state === "ACTIVE").length, INSTANCES);
      },
      { timeout: 120_000, interval: 500 },
    );
    for (const p of processes) {
      const ended = await p.stop();
      assert.equal(ended.code, 0, p.output().slice(-2000));
    }
    const leases = await shardLeases();
    assert.equal(leases.length, 4);
    assert.deepEqual(
      leases.filter((l) => (l.spec.holderIdentity ?? "") !== ""),
      [],
      "every shard released",
    );
  });
});
