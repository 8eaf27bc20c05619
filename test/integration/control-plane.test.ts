// Proof that the local control plane is a real one: version, CRD validation, RBAC, and (full
// mode) Deployments rolling out on the simulated node, garbage collection, namespace deletion.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { request } from "node:https";
import { describe, it } from "node:test";
import { eventually } from "../support/eventually.js";
import { KubectlError, kubectl, kubectlJson, testCluster, testNamespace } from "../support/test-cluster.js";

describe("local control plane", () => {
  it("reports the pinned Kubernetes version", async () => {
    const version = await kubectlJson<{ serverVersion: { gitVersion: string; major: string; minor: string } }>([
      "version",
    ]);
    assert.equal(version.serverVersion.gitVersion, testCluster().kubernetesVersion);
    assert.match(testCluster().kubernetesVersion, /^v1\.3[1-3]\.\d+$/);
    assert.equal(
      `v${version.serverVersion.major}.${version.serverVersion.minor}`,
      testCluster().kubernetesVersion.split(".").slice(0, 2).join("."),
    );
  });

  it("uses kind's service CIDR (10.96.0.0/12): the kubernetes Service is 10.96.0.1", async () => {
    const svc = await kubectlJson<{ spec: { clusterIP: string } }>(["get", "service", "kubernetes", "-n", "default"]);
    assert.equal(svc.spec.clusterIP, "10.96.0.1");
  });

  it("serves a CRD with preserve-unknown-fields and enforces its CEL validation rule", async (t) => {
    const ns = await testNamespace(t, "crd");
    const group = `${ns}.kro-test.example`;
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: {
                    type: "object",
                    "x-kubernetes-validations": [{ rule: "self.min <= self.max", message: "min must not exceed max" }],
                    properties: {
                      min: { type: "integer" },
                      max: { type: "integer" },
                      extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    t.after(async () => {
      await kubectl(["delete", "crd", `widgets.${group}`, "--wait=false", "--ignore-not-found"]);
    });
    await kubectl(["apply", "--server-side", "-f", "-"], JSON.stringify(crd));
    await kubectl(["wait", "--for=condition=Established", "--timeout=30s", `crd/widgets.${group}`]);

    const widget = (min: number, max: number) =>
      JSON.stringify({
        apiVersion: `${group}/v1`,
        kind: "Widget",
        metadata: { name: `w-${min}-${max}`, namespace: ns },
        spec: { min, max, extra: { anything: { nested: [1, "two"] } } },
      });
    await kubectl(["create", "-f", "-"], widget(1, 2));
    const stored = await kubectlJson<{ spec: { extra: unknown } }>(["get", "-n", ns, "widget", "w-1-2"]);
    assert.deepEqual(stored.spec.extra, { anything: { nested: [1, "two"] } }, "unknown fields are preserved");

    await assert.rejects(kubectl(["create", "-f", "-"], widget(5, 1)), (error: unknown) => {
      assert.ok(error instanceof KubectlError);
      assert.match(error.stderr, /min must not exceed max/);
      assert.match(error.stderr, /Invalid/);
      return true;
    });
  });

  it("enforces RBAC: a user without rights is forbidden", async (t) => {
    const ns = await testNamespace(t, "rbac");
    await assert.rejects(kubectl(["get", "configmaps", "-n", ns, "--as=kro-test-nobody"]), (error: unknown) => {
      assert.ok(error instanceof KubectlError);
      assert.match(error.stderr, /\(Forbidden\)/);
      assert.match(error.stderr, /User "kro-test-nobody" cannot list resource "configmaps"/);
      return true;
    });
    const viaHttp = await fetchStatus(`/api/v1/namespaces/${ns}/configmaps`, { "Impersonate-User": "kro-test-nobody" });
    assert.equal(viaHttp, 403);

    await kubectl(["create", "rolebinding", "nobody-view", "--clusterrole=view", "--user=kro-test-nobody", "-n", ns]);
    await eventually(async () => {
      assert.match(await kubectl(["auth", "can-i", "list", "configmaps", "-n", ns, "--as=kro-test-nobody"]), /^yes/);
    });
  });
});

describe("local control plane, full mode", () => {
  it("runs in full mode (the test runner starts controllers, scheduler and kwok)", () => {
    assert.equal(testCluster().mode, "full");
  });

  it("rolls a Deployment out on the simulated node until it is Available with 2 replicas", async (t) => {
    const ns = await testNamespace(t, "deploy");
    await kubectl(["create", "deployment", "web", "--image=nginx:1.27", "--replicas=2", "-n", ns]);
    await kubectl(["wait", "--for=condition=Available", "--timeout=60s", "-n", ns, "deployment/web"]);
    const deployment = await kubectlJson<{ status: { availableReplicas?: number; readyReplicas?: number } }>([
      "get",
      "-n",
      ns,
      "deployment",
      "web",
    ]);
    assert.equal(deployment.status.availableReplicas, 2);
    assert.equal(deployment.status.readyReplicas, 2);
  });

  it("garbage-collects a dependent when its owner is deleted", async (t) => {
    const ns = await testNamespace(t, "gc");
    await kubectl(["create", "configmap", "owner", "-n", ns]);
    const owner = await kubectlJson<{ metadata: { uid: string } }>(["get", "configmap", "owner", "-n", ns]);
    const dependent = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "dependent",
        namespace: ns,
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid }],
      },
    };
    await kubectl(["create", "-f", "-"], JSON.stringify(dependent));
    await kubectl(["delete", "configmap", "owner", "-n", ns]);
    await eventually(
      async () => {
        assert.equal(
          await kubectl(["get", "configmap", "dependent", "-n", ns, "--ignore-not-found", "-o", "name"]),
          "",
        );
      },
      { timeout: 60_000 },
    );
  });

  it("finishes deleting a namespace", async () => {
    const name = `gone-${Date.now().toString(36)}`;
    await kubectl(["create", "namespace", name]);
    await kubectl(["create", "configmap", "content", "-n", name]);
    await kubectl(["delete", "namespace", name, "--wait=false"]);
    await eventually(
      async () => {
        assert.equal(await kubectl(["get", "namespace", name, "--ignore-not-found", "-o", "name"]), "");
      },
      { timeout: 60_000 },
    );
  });
});

async function fetchStatus(apiPath: string, headers: Record<string, string>): Promise<number> {
  const cluster = testCluster();
  const config = JSON.parse(await readFile(cluster.kubeconfig, "utf8")) as {
    clusters: { cluster: { "certificate-authority-data": string } }[];
  };
  const ca = Buffer.from(config.clusters[0]?.cluster["certificate-authority-data"] ?? "", "base64").toString("utf8");
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(apiPath, cluster.server),
      {
        headers: { authorization: `Bearer ${cluster.token}`, ...headers },
        ca,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
