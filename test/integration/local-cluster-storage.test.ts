// The local cluster provisions volumes: a StatefulSet with volumeClaimTemplates, the most common
// way a chart or an RGD asks for storage, becomes Ready in `kro cluster up`'s control plane.
// kube-controller-manager's host-path provisioner backs the default StorageClass with a
// directory under /tmp/hostpath_pv/ on this machine, removed again when the claim is deleted;
// the simulated node (kwok) mounts nothing, so the pod is Ready once its claim is Bound.
import assert from "node:assert/strict";
import { access } from "node:fs/promises";
import { describe, it } from "node:test";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, testCluster, testNamespace } from "../support/test-cluster.js";

interface Claim {
  spec?: { storageClassName?: string; volumeName?: string };
  status?: { phase?: string };
}
interface Volume {
  spec?: { hostPath?: { path?: string } };
}
interface StatefulSet {
  status?: { readyReplicas?: number; availableReplicas?: number };
}

const statefulSet = (ns: string): string =>
  JSON.stringify({
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "db", namespace: ns },
    spec: {
      serviceName: "db",
      replicas: 1,
      selector: { matchLabels: { app: "db" } },
      template: {
        metadata: { labels: { app: "db" } },
        spec: {
          containers: [
            {
              name: "db",
              image: "registry.k8s.io/pause:3.10",
              volumeMounts: [{ name: "data", mountPath: "/data" }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
    },
  });

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );

describe("local cluster: volumes", () => {
  it("a StatefulSet with a volumeClaimTemplate gets a Bound claim on the default StorageClass and becomes ready", async (t) => {
    assert.equal(testCluster().mode, "full", "volumes need kube-controller-manager and the simulated node");
    const ns = await testNamespace(t, "storage");
    await kubectl(["apply", "-f", "-"], statefulSet(ns));

    const claim = await eventually(
      async () => {
        const c = await kubectlJson<Claim>(["get", "pvc", "data-db-0", "-n", ns]);
        assert.equal(c.status?.phase, "Bound");
        return c;
      },
      { timeout: 60_000, interval: 500 },
    );
    assert.equal(claim.spec?.storageClassName, "standard", "the default StorageClass fills in the claim");
    await eventually(
      async () => {
        const sts = await kubectlJson<StatefulSet>(["get", "statefulset", "db", "-n", ns]);
        assert.equal(sts.status?.readyReplicas, 1);
      },
      { timeout: 60_000, interval: 500 },
    );

    // The data lives in a host directory that goes away with its claim.
    const volume = await kubectlJson<Volume>(["get", "pv", claim.spec.volumeName ?? ""]);
    const dir = volume.spec?.hostPath?.path ?? "";
    assert.match(dir, /^\/tmp\/hostpath_pv\/[0-9a-f-]+$/);
    assert.ok(await exists(dir), `${dir} exists while the claim does`);
    await kubectl(["delete", "statefulset", "db", "-n", ns, "--wait=true"]);
    await kubectl(["delete", "pvc", "data-db-0", "-n", ns, "--wait=true"]);
    await eventually(
      async () => {
        assert.equal(await exists(dir), false, `${dir} removed with its claim`);
      },
      {
        timeout: 60_000,
        interval: 500,
      },
    );
  });
});
