// deploy/kro-controller.yaml on the real control plane: it applies cleanly server-side, the
// Deployment's pods pass the restricted Pod Security Standard, and the ServiceAccount it installs
// — acting with its own TokenRequest token — has exactly the least-privilege rights the README
// promises, plus whatever an aggregated ClusterRole labelled
// rbac.kro.run/aggregate-to-controller: "true" grants (kube-controller-manager aggregates it).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { parse } from "yaml";
import { MANIFEST_PATH, REPO_ROOT } from "../../src/deploy/index.js";
import { eventually } from "../support/eventually.js";
import { lockAggregatedGrants, type AggregatedGrants } from "../support/grant-lock.js";
import { canI, kubectlAs, serviceAccountKubeconfig } from "../support/service-account.js";
import { KubectlError, kubectl, kubectlJson, testCluster, testNamespace } from "../support/test-cluster.js";

const run = promisify(execFile);

const NS = "kro-system";
const SA = "kro-ts";

interface Obj {
  metadata: { name: string; resourceVersion: string; generation?: number; labels?: Record<string, string> };
  [key: string]: unknown;
}

async function kubectlWithStderr(args: readonly string[], stdin: string): Promise<{ stdout: string; stderr: string }> {
  const child = run("kubectl", ["--kubeconfig", testCluster().kubeconfig, ...args]);
  child.child.stdin?.end(stdin);
  return child;
}

async function forbidden(promise: Promise<unknown>): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof KubectlError);
    assert.match(error.stderr, /forbidden/i);
    assert.match(error.stderr, new RegExp(`system:serviceaccount:${NS}:${SA}`));
    return true;
  });
}

describe("deploy/kro-controller.yaml", () => {
  it("applies server-side, installs every object, passes Pod Security restricted, and is idempotent", async () => {
    const manifest = await readFile(path.join(REPO_ROOT, MANIFEST_PATH), "utf8");
    // kubectl prints admission warnings (e.g. "would violate PodSecurity") on stderr: none allowed.
    const { stdout: applied, stderr } = await kubectlWithStderr(["apply", "--server-side", "-f", "-"], manifest);
    assert.equal(stderr.trim(), "", "no warnings");
    for (const line of [
      `namespace/${NS} serverside-applied`,
      "customresourcedefinition.apiextensions.k8s.io/resourcegraphdefinitions.kro.run serverside-applied",
      `serviceaccount/${SA} serverside-applied`,
      "clusterrole.rbac.authorization.k8s.io/kro-ts serverside-applied",
      "clusterrole.rbac.authorization.k8s.io/kro-ts:base serverside-applied",
      "clusterrolebinding.rbac.authorization.k8s.io/kro-ts serverside-applied",
      "role.rbac.authorization.k8s.io/kro-ts:leader-election serverside-applied",
      "rolebinding.rbac.authorization.k8s.io/kro-ts:leader-election serverside-applied",
      "service/kro-ts-metrics serverside-applied",
      "deployment.apps/kro-ts serverside-applied",
    ])
      assert.ok(applied.includes(line), `missing "${line}" in:\n${applied}`);

    await kubectl(["wait", "--for=condition=Established", "--timeout=30s", "crd/resourcegraphdefinitions.kro.run"]);
    const deployment = await kubectlJson<
      Obj & { spec: { replicas: number; template: { spec: { serviceAccountName: string } } } }
    >(["get", "deployment", SA, "-n", NS]);
    assert.equal(deployment.spec.replicas, 2);
    assert.equal(deployment.spec.template.spec.serviceAccountName, SA);
    const service = await kubectlJson<{ spec: { ports: { port: number; name: string }[] } }>([
      "get",
      "service",
      "kro-ts-metrics",
      "-n",
      NS,
    ]);
    assert.deepEqual(
      service.spec.ports.map((p) => [p.name, p.port]),
      [["http-metrics", 8078]],
    );

    // The ReplicaSet controller creates the pods only if Pod Security admission (restricted,
    // enforced by the namespace label) accepts them; kwok then runs them on its fake node.
    await eventually(
      async () => {
        const pods = await kubectlJson<{ items: Obj[] }>([
          "get",
          "pods",
          "-n",
          NS,
          "-l",
          "app.kubernetes.io/name=kro-ts",
        ]);
        assert.equal(pods.items.length, 2, "two controller pods");
      },
      { timeout: 60_000, interval: 500 },
    );
    const events = await kubectl(["get", "events", "-n", NS, "--field-selector", "reason=FailedCreate", "-o", "name"]);
    assert.equal(events.trim(), "", "no FailedCreate (Pod Security) events");

    // Applying again changes nothing: no field fights the API server's defaulting.
    await kubectl(["apply", "--server-side", "-f", "-"], manifest);
    const after = await kubectlJson<Obj>(["get", "deployment", SA, "-n", NS]);
    // generation, not resourceVersion: the Deployment's status keeps changing while kwok runs its pods.
    assert.equal(after.metadata.generation, deployment.metadata.generation);
  });

  it("gives the ServiceAccount's own token least privilege, widened only by aggregated ClusterRoles", async (t) => {
    const manifest = await readFile(path.join(REPO_ROOT, MANIFEST_PATH), "utf8");
    await kubectl(["apply", "--server-side", "-f", "-"], manifest);
    // No other test file may widen the account while this one asserts what it is denied.
    const grants = await lockAggregatedGrants("deploy-manifest least privilege");
    t.after(() => grants.release());
    const ns = await testNamespace(t, "deploy-rbac");
    const { kubeconfig } = await serviceAccountKubeconfig(t, NS, SA);

    const whoami = await kubectlAs(kubeconfig, ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]);
    assert.equal(whoami, `system:serviceaccount:${NS}:${SA}`);

    // kube-controller-manager fills the aggregated ClusterRole from kro-ts:base asynchronously.
    await eventually(
      async () => {
        assert.ok(await canI(kubeconfig, ["watch", "resourcegraphdefinitions.kro.run"]));
      },
      { timeout: 30_000 },
    );
    const allowed: string[][] = [
      ["list", "resourcegraphdefinitions.kro.run"],
      ["patch", "resourcegraphdefinitions.kro.run"],
      ["update", "resourcegraphdefinitions.kro.run", "--subresource=status"],
      ["update", "resourcegraphdefinitions.kro.run", "--subresource=finalizers"],
      ["create", "customresourcedefinitions.apiextensions.k8s.io"],
      ["patch", "customresourcedefinitions.apiextensions.k8s.io"],
      ["create", "leases.coordination.k8s.io", "-n", NS],
      ["update", "leases.coordination.k8s.io", "-n", NS],
      ["create", "events", "-n", ns],
      ["patch", "events.events.k8s.io", "-n", ns],
    ];
    const denied: string[][] = [
      ["create", "resourcegraphdefinitions.kro.run"],
      ["delete", "resourcegraphdefinitions.kro.run"],
      ["delete", "customresourcedefinitions.apiextensions.k8s.io"],
      ["create", "leases.coordination.k8s.io", "-n", ns],
      ["get", "secrets", "-n", ns],
      ["create", "configmaps", "-n", ns],
      ["create", "deployments.apps", "-n", ns],
      ["create", "clusterroles.rbac.authorization.k8s.io"],
      ["escalate", "clusterroles.rbac.authorization.k8s.io"],
    ];
    for (const args of allowed) assert.equal(await canI(kubeconfig, args), true, `can ${args.join(" ")}`);
    for (const args of denied) assert.equal(await canI(kubeconfig, args), false, `cannot ${args.join(" ")}`);

    // Real requests, not only can-i: what it may do works, what it may not is a 403.
    await kubectlAs(kubeconfig, ["get", "resourcegraphdefinitions.kro.run"]);
    await kubectlAs(kubeconfig, ["get", "customresourcedefinitions"]);
    const lease = `kro-deploy-test-${randomBytes(3).toString("hex")}`;
    await kubectlAs(
      kubeconfig,
      ["create", "-f", "-"],
      JSON.stringify({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: lease, namespace: NS },
        spec: { holderIdentity: "test" },
      }),
    );
    t.after(() => kubectl(["delete", "lease", lease, "-n", NS, "--ignore-not-found"]));
    const configMap = JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "granted", namespace: ns },
      data: { a: "1" },
    });
    await forbidden(kubectlAs(kubeconfig, ["create", "-f", "-"], configMap));
    await forbidden(kubectlAs(kubeconfig, ["get", "secrets", "-n", ns]));

    // Granting a child kind: a ClusterRole with the aggregation label, nothing else.
    const grant = `kro-ts-test-grant-${randomBytes(3).toString("hex")}`;
    await grants.grant({
      metadata: { name: grant, labels: { "rbac.kro.run/aggregate-to-controller": "true" } },
      rules: [
        {
          apiGroups: [""],
          resources: ["configmaps"],
          verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
        },
      ],
    });
    await eventually(
      async () => {
        await kubectlAs(kubeconfig, ["create", "-f", "-"], configMap);
      },
      { timeout: 30_000, interval: 500 },
    );
    const created = await kubectlJson<{ data: Record<string, string> }>(["get", "configmap", "granted", "-n", ns]);
    assert.deepEqual(created.data, { a: "1" });
    // Still nothing it was not granted.
    await forbidden(kubectlAs(kubeconfig, ["get", "secrets", "-n", ns]));

    // Removing the grant takes the right away again.
    await kubectl(["delete", "clusterrole", grant]);
    await eventually(
      async () => {
        assert.equal(await canI(kubeconfig, ["create", "configmaps", "-n", ns]), false);
      },
      { timeout: 30_000, interval: 500 },
    );
  });
  it("examples/nginx/kro-rbac.yaml grants the NginxApp example's instance and child kinds", async (t) => {
    const manifest = await readFile(path.join(REPO_ROOT, MANIFEST_PATH), "utf8");
    await kubectl(["apply", "--server-side", "-f", "-"], manifest);
    const grants = await lockAggregatedGrants("deploy-manifest nginx example");
    t.after(() => grants.release());
    const ns = await testNamespace(t, "deploy-example");
    const { kubeconfig } = await serviceAccountKubeconfig(t, NS, SA);
    // `auth can-i` needs the kind in discovery (it answers "no" for an unknown resource type).
    // The CRD is the example's own, shared and left in place like the RGD CRD.
    // Created only when absent: the NginxApp walkthrough's controller may already have added its
    // status storage to it (server-side apply would then conflict on .spec.versions).
    await kubectl(["create", "-f", path.join(REPO_ROOT, "examples/nginx/nginxapp-crd.yaml")]).catch(
      (error: unknown) => {
        if (!(error instanceof KubectlError && /AlreadyExists/.test(error.stderr))) throw error;
        return "";
      },
    );
    await kubectl(["wait", "--for=condition=Established", "--timeout=30s", "crd/nginxapps.kro.example.com"]);
    const checks: string[][] = [
      ["watch", "nginxapps.kro.example.com", "-n", ns],
      ["update", "nginxapps.kro.example.com", "--subresource=status", "-n", ns],
      ["create", "deployments.apps", "-n", ns],
      ["delete", "services", "-n", ns],
      ["patch", "ingresses.networking.k8s.io", "-n", ns],
    ];
    for (const args of checks) assert.equal(await canI(kubeconfig, args), false, `not yet: ${args.join(" ")}`);
    const grant = await readFile(path.join(REPO_ROOT, "examples/nginx/kro-rbac.yaml"), "utf8");
    await grants.grant(parse(grant) as Parameters<AggregatedGrants["grant"]>[0]);
    await eventually(
      async () => {
        for (const args of checks) assert.equal(await canI(kubeconfig, args), true, `granted: ${args.join(" ")}`);
      },
      { timeout: 30_000, interval: 500 },
    );
    assert.equal(
      await canI(kubeconfig, ["delete", "nginxapps.kro.example.com", "-n", ns]),
      false,
      "instances are never deleted by the controller",
    );
  });
});
