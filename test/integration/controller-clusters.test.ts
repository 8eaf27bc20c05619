/**
 * One instance, two clusters (docs/design/clusters.md): the test runner's cluster is the hub, and this
 * suite starts a second minimal control plane ("b") registered by a kubeconfig Secret. Children
 * are placed in both; a remote child waits on a local child's data, a local child and the
 * instance's status read the remote child; hand edits in b are corrected; a target the RGD does
 * not allow is refused; a remote child that appears only in a later apply round (it reads another
 * child's uid) goes nowhere when its spec-chosen target is a registered cluster its resource does
 * not list (0 connections at a counting proxy in front of that registration) or empty (not the
 * hub either); b's API server going away fails b's children alone and converges again when it is
 * back; a rotated Secret takes effect without a restart; deletion empties both. Then
 * the Cluster Inventory API: its ClusterProfile CRD (vendored, test/data/cluster-inventory) is
 * installed in the hub after the controller started, and b is registered a second time, as
 * "inv", by a ClusterProfile and a token Secret; its ControlPlaneHealthy condition holds and
 * releases the cluster's children; a kubeconfig Secret naming the same cluster wins.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createKubeClient, isNotFound, type KubeClient, type KubeObject } from "../../src/kube/index.js";
import { startLocalCluster, type LocalCluster } from "../../src/localcluster/index.js";
import { eventually } from "../support/eventually.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { recordText } from "../support/instance-record.js";
import path from "node:path";
import { REPO_ROOT } from "../../src/deploy/index.js";
import { expectAbsent, kubectl, kubectlJson, testCluster } from "../support/test-cluster.js";
import { runKro, startCli } from "../support/cli-session.js";
import { serviceAccountKubeconfig } from "../support/service-account.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

type ConfigMap = KubeObject & { data?: Record<string, string> };
interface Instance {
  status?: { state?: string; remoteUid?: string; conditions?: { type: string; status: string; message?: string }[] };
}

const suffix = letterSuffix();
const cap = suffix.charAt(0).toUpperCase() + suffix.slice(1);
const kind = `Regional${cap}App`;
const plural = `${kind.toLowerCase()}s`;
const hubNs = `mc-hub-${suffix}`;
const appNs = `mc-app-${suffix}`;
const rgdName = `regional-${suffix}`;
const inventoryRgd = `inventory-${suffix}`;
const inventoryKind = `Inventory${cap}App`;
const gateRgd = `gate-${suffix}`;
const gateKind = `Gate${cap}App`;
const PROFILE_CRD = path.join(REPO_ROOT, "test/data/cluster-inventory/multicluster.x-k8s.io_clusterprofiles.yaml");
let tc: TestController;
let b: LocalCluster;
let bClient: KubeClient;

function kubeconfigFor(cluster: LocalCluster, token = cluster.token, server = cluster.server): string {
  return `apiVersion: v1
kind: Config
clusters: [{ name: b, cluster: { server: "${server}", certificate-authority-data: ${Buffer.from(cluster.caData).toString("base64")} } }]
users: [{ name: kro, user: { token: "${token}" } }]
contexts: [{ name: b, context: { cluster: b, user: kro } }]
current-context: b
`;
}

async function register(kubeconfig: string, cluster = "b"): Promise<void> {
  await kubectl(
    ["apply", "-f", "-"],
    `apiVersion: v1
kind: Secret
metadata: { name: ${cluster}-kubeconfig, namespace: ${hubNs}, labels: { kro.run/cluster-name: ${cluster} } }
data: { value: ${Buffer.from(kubeconfig).toString("base64")} }
`,
  );
}

const remoteCm = (name: string) =>
  bClient.get<ConfigMap>({ apiVersion: "v1", kind: "ConfigMap", namespace: appNs, name });
const hubCm = (name: string) => kubectlJson<ConfigMap>(["get", "configmap", name, "-n", appNs]);
const instance = (name: string) => kubectlJson<Instance>(["get", plural, name, "-n", appNs]);
const applyInstance = (name: string, value: string, regions: string[]) =>
  kubectl(
    ["apply", "-f", "-"],
    `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${appNs} }\nspec: { value: "${value}", regions: ${JSON.stringify(regions)} }\n`,
  );
async function remoteAbsent(name: string): Promise<void> {
  await assert.rejects(remoteCm(name), (e: unknown) => isNotFound(e));
}

describe("children in other clusters", { timeout: 300_000 }, () => {
  before(async () => {
    b = await startLocalCluster({ mode: "minimal", env: process.env });
    bClient = await createKubeClient({ kubeconfig: b.kubeconfigPath, qps: 0 });
    await bClient.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: appNs } });
    await kubectl(["create", "namespace", hubNs]);
    await kubectl(["create", "namespace", appNs]);
    await register(kubeconfigFor(b));
    tc = await startTestController({ clusterNamespace: hubNs, requeueIntervalMs: 1000 });
    await kubectl(
      ["apply", "-f", "-"],
      `
${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec: { value: string, regions: "[]string" }
    status: { remoteUid: "\${remote.metadata.uid}" }
  resources:
    - id: hub
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-hub" }, data: { v: "\${schema.spec.value}" } }
    - id: remote
      cluster: b
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-b" }, data: { v: "\${hub.data.v}" } }
    - id: back
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-back" }, data: { remoteUid: "\${remote.metadata.uid}" } }
    - id: fan
      forEach: [{ region: "\${schema.spec.regions}" }]
      cluster: "\${region}"
      clusters: [b]
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-fan-\${region}" }, data: { v: "\${schema.spec.value}" } }
`,
    );
    await waitRgdActive(rgdName);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, inventoryRgd, gateRgd, "--wait=false", "--ignore-not-found"]).catch(
      () => "",
    );
    await kubectl(["delete", "-f", PROFILE_CRD, "--wait=false", "--ignore-not-found"]).catch(() => "");
    await kubectl(["delete", "namespace", hubNs, appNs, "--wait=false", "--ignore-not-found"]).catch(() => "");
    bClient.close();
    await b.stop();
  });

  it("places children in both clusters, in dependency order, and reads the remote child back", async () => {
    await applyInstance("one", "v1", ["b"]);
    await eventually(
      async () => {
        assert.equal((await instance("one")).status?.state, "ACTIVE", JSON.stringify((await instance("one")).status));
      },
      { timeout: 60_000 },
    );
    const remote = await remoteCm("one-b");
    assert.equal(remote.data?.v, "v1", "the remote child read the local child's data");
    assert.equal(remote.metadata?.annotations?.["kro.run/cluster"], "b");
    assert.equal((await remoteCm("one-fan-b")).data?.v, "v1", "forEach placed its item in the cluster it names");
    assert.equal((await hubCm("one-back")).data?.remoteUid, remote.metadata.uid, "a local child read the remote child");
    assert.equal(
      (await instance("one")).status?.remoteUid,
      remote.metadata.uid,
      "the instance's status reads the remote child",
    );
    await expectAbsent(["configmap", "one-b", "-n", appNs]);
    const inventory = recordText(await kubectlJson<KubeObject>(["get", plural, "one", "-n", appNs]));
    assert.match(
      inventory,
      /"one-b","[^"]+","remote","","b"\]/,
      "the inventory records the remote child with its cluster",
    );
  });

  it("a rollout whose first wave follows a cluster moves the instances with a child there first, the rest only after", async (t) => {
    const name = `waves-${suffix}`;
    const waveKind = `Waves${cap}App`;
    const rgd = (rev: string) => `
${rgdHeader(tc, name)}
  schema:
    apiVersion: v1alpha1
    kind: ${waveKind}
    spec: { regions: "[]string" }
  rollout:
    waves: [{ name: in-b, clusters: [b] }]
    gate: { readyWithin: 60s }
    pauseBetweenWaves: 1h
  resources:
    - id: hub
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-w" }, data: { rev: "${rev}" } }
    - id: fan
      forEach: [{ region: "\${schema.spec.regions}" }]
      cluster: "\${region}"
      clusters: [b]
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-w-\${region}" }, data: { rev: "${rev}" } }
`;
    t.after(async () => {
      await kubectl(["delete", "rgd", name, "--wait=false", "--ignore-not-found"]).catch(() => "");
    });
    await kubectl(["apply", "-f", "-"], rgd("r1"));
    await waitRgdActive(name);
    const make = (instanceName: string, regions: string[]) =>
      kubectl(
        ["apply", "-f", "-"],
        `apiVersion: kro.run/v1alpha1\nkind: ${waveKind}\nmetadata: { name: ${instanceName}, namespace: ${appNs} }\nspec: { regions: ${JSON.stringify(regions)} }\n`,
      );
    await make("in-b", ["b"]);
    await make("hub-only", []);
    const ready = (instanceName: string) => async () => {
      const o = await kubectlJson<Instance>([`get`, waveKind.toLowerCase(), instanceName, "-n", appNs]);
      assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
    };
    await eventually(ready("in-b"), { timeout: 60_000 });
    await eventually(ready("hub-only"), { timeout: 60_000 });
    await kubectl(["apply", "-f", "-"], rgd("r2"));
    // The wave of cluster b takes in-b (its inventory places a child in b); the pause holds the rest.
    await eventually(
      async () => {
        assert.equal((await remoteCm("in-b-w-b")).data?.rev, "r2");
        assert.equal((await hubCm("in-b-w")).data?.rev, "r2");
        const condition = (
          await kubectlJson<{ status?: { conditions?: { type: string; reason?: string }[] } }>(["get", "rgd", name])
        ).status?.conditions?.find((c) => c.type === "Propagated");
        assert.equal(condition?.reason, "WaitingBetweenWaves", JSON.stringify(condition));
      },
      { timeout: 90_000, interval: 500 },
    );
    assert.equal(
      (await hubCm("hub-only-w")).data?.rev,
      "r1",
      "the instance with no child in b waits for the next wave",
    );
  });

  it("kro tree reads remote children in their cluster; a reader who may not read the registrations is told why, not shown them waiting", async (t) => {
    interface Tree {
      ready: boolean;
      nodes: { id: string; state: string; reason: string; objects: { name: string; cluster?: string }[] }[];
    }
    const tree = async (kubeconfig = testCluster().kubeconfig): Promise<Tree> =>
      JSON.parse(
        (
          await runKro([
            "tree",
            `${kind}/one`,
            "-n",
            appNs,
            "-o",
            "json",
            "--cluster-namespace",
            hubNs,
            "--kubeconfig",
            kubeconfig,
          ])
        ).stdout,
      ) as Tree;
    const node = (read: Tree, id: string) => read.nodes.find((n) => n.id === id);
    const admin = await tree();
    assert.equal(admin.ready, true);
    for (const id of ["remote", "fan"]) {
      assert.equal(node(admin, id)?.state, "Ready", JSON.stringify(node(admin, id)));
      assert.deepEqual(
        node(admin, id)?.objects.map((o) => o.cluster),
        ["b"],
        "the object was read in cluster b, and says so",
      );
    }
    assert.equal(node(admin, "hub")?.objects[0]?.cluster, undefined, "a hub child names no cluster");

    // A tenant who may read the instance and its hub children, but not the registration Secrets.
    await kubectl(["create", "serviceaccount", "treeview", "-n", appNs]);
    await kubectl([
      "create",
      "role",
      "treeview",
      "-n",
      appNs,
      "--verb=get,list",
      `--resource=${plural}.kro.run,configmaps`,
    ]);
    await kubectl([
      "create",
      "rolebinding",
      "treeview",
      "-n",
      appNs,
      "--role=treeview",
      `--serviceaccount=${appNs}:treeview`,
    ]);
    await kubectl([
      "create",
      "clusterrole",
      `treeview-${suffix}`,
      "--verb=get,list",
      "--resource=resourcegraphdefinitions.kro.run",
    ]);
    await kubectl([
      "create",
      "clusterrolebinding",
      `treeview-${suffix}`,
      `--clusterrole=treeview-${suffix}`,
      `--serviceaccount=${appNs}:treeview`,
    ]);
    t.after(async () => {
      await kubectl(["delete", "clusterrole,clusterrolebinding", `treeview-${suffix}`, "--ignore-not-found"]).catch(
        () => "",
      );
    });
    const tenant = await serviceAccountKubeconfig(t, appNs, "treeview");
    const seen = await tree(tenant.kubeconfig);
    assert.equal(node(seen, "hub")?.state, "Ready");
    const remote = node(seen, "remote");
    assert.equal(remote?.state, "Unknown", JSON.stringify(remote));
    assert.match(
      remote.reason,
      new RegExp(`cluster "b": cannot read its registration in namespace ${hubNs}: .*forbidden`),
    );
  });

  it("the web view shows remote children in their cluster, read there", async (t) => {
    const ui = startCli([
      "ui",
      "--port",
      "0",
      "--selector",
      `${tc.label.key}=${tc.label.value}`,
      "--cluster-namespace",
      hubNs,
      "--kubeconfig",
      testCluster().kubeconfig,
    ]);
    t.after(() => {
      ui.kill();
    });
    const [, url = ""] = await ui.waitFor(/kro ui: serving (http:\/\/127\.0\.0\.1:\d+\/)/, 30_000);
    const page = await (await fetch(`${url}instances/${rgdName}/${appNs}/one`)).text();
    const row = (node: string) =>
      new RegExp(`<tr[^>]*data-node="${node}"[^>]*>.*?</tr>`).exec(page)?.[0] ?? `no row for ${node} in:\n${page}`;
    for (const node of ["remote", "fan"]) {
      assert.match(row(node), /<td class="cluster">b<\/td>/);
      assert.match(row(node), /data-state="ready"/);
    }
    assert.match(row("hub"), /<td class="cluster">hub<\/td>/);
  });

  it("corrects a remote child edited by hand", async () => {
    const live = await remoteCm("one-b");
    await bClient.patch(
      { apiVersion: "v1", kind: "ConfigMap", namespace: appNs, name: "one-b" },
      { data: { v: "hand-edit" } },
    );
    await eventually(
      async () => {
        assert.equal((await remoteCm("one-b")).data?.v, "v1");
      },
      { timeout: 30_000 },
    );
    assert.equal((await remoteCm("one-b")).metadata?.uid, live.metadata?.uid, "corrected in place, not recreated");
  });

  it("refuses a target the RGD does not allow, and converges everything else", async () => {
    await applyInstance("two", "v2", ["c"]);
    await eventually(
      async () => {
        const status = JSON.stringify((await instance("two")).status);
        assert.match(status, /cluster \\"c\\" is not allowed for resource \\"fan\\"/, status);
      },
      { timeout: 60_000 },
    );
    assert.equal((await remoteCm("two-b")).data?.v, "v2");
    await kubectl(["delete", plural, "two", "-n", appNs]);
  });

  it("a child that appears in a later apply round goes only to a cluster its resource allows: a registered cluster it does not list and an empty target are refused, and no request reaches them", async () => {
    // "forbidden" is b again, registered through a counting proxy: every connection to it is seen.
    const proxy = await TcpProxy.start(b.server);
    try {
      await register(kubeconfigFor(b, b.token, proxy.url()), "forbidden");
      await kubectl(
        ["apply", "-f", "-"],
        `
${rgdHeader(tc, gateRgd)}
  schema:
    apiVersion: v1alpha1
    kind: ${gateKind}
    spec: { value: string, where: string }
  resources:
    - id: first
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-first" }, data: { v: "\${schema.spec.value}" } }
    - id: steered
      cluster: "\${schema.spec.where}"
      clusters: [b]
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-steered" }, data: { firstUid: "\${first.metadata.uid}" } }
    - id: fixed
      cluster: b
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-fixed" }, data: { firstUid: "\${first.metadata.uid}" } }
`,
      );
      await waitRgdActive(gateRgd);
      const gatePlural = `${gateKind.toLowerCase()}s`;
      const gateInstance = (name: string, where: string) =>
        kubectl(
          ["apply", "-f", "-"],
          `apiVersion: kro.run/v1alpha1\nkind: ${gateKind}\nmetadata: { name: ${name}, namespace: ${appNs} }\nspec: { value: ${name}, where: "${where}" }\n`,
        );
      const messages = async (name: string) =>
        (
          (await kubectlJson<Instance>(["get", gatePlural, name, "-n", appNs])).status?.conditions?.map(
            (c) => c.message ?? "",
          ) ?? []
        ).join("\n");
      // Positive control: the allowed target receives the child, which waits on the hub child's uid.
      await gateInstance("allowed", "b");
      await eventually(
        async () => {
          const first = await hubCm("allowed-first");
          assert.equal((await remoteCm("allowed-steered")).data?.firstUid, first.metadata?.uid);
          assert.equal((await remoteCm("allowed-fixed")).data?.firstUid, first.metadata?.uid);
        },
        { timeout: 60_000 },
      );
      // The controller opens no connection to a registered cluster nothing places children in.
      assert.equal(proxy.connections, 0, "a connection reached the unused registration");
      const requestsBefore = tc.requests.length;

      // Fresh instances: in their first pass "steered" is pending (no uid yet) and appears in a later round.
      await gateInstance("out", "forbidden");
      await gateInstance("blank", "");
      await eventually(
        async () => {
          assert.match(await messages("out"), /cluster "forbidden" is not allowed for resource "steered"/);
          assert.match(
            await messages("blank"),
            /resource "steered": its target cluster evaluated to ""; an empty target is an error, not this cluster/,
          );
        },
        { timeout: 60_000 },
      );
      // The rest of each instance converges: the allowed cluster still gets its child.
      await eventually(
        async () => {
          for (const name of ["out", "blank"])
            assert.equal(
              (await remoteCm(`${name}-fixed`)).data?.firstUid,
              (await hubCm(`${name}-first`)).metadata?.uid,
            );
        },
        { timeout: 60_000 },
      );
      await remoteAbsent("out-steered"); // where "forbidden" would have put it (b, through the proxy)
      await remoteAbsent("blank-steered");
      await expectAbsent(["configmap", "out-steered", "-n", appNs]);
      await expectAbsent(["configmap", "blank-steered", "-n", appNs]); // an empty target is never the hub
      assert.deepEqual(
        tc.requests
          .slice(requestsBefore)
          .filter((r) => /\/configmaps\/(out|blank)-steered\b/.test(r.path))
          .map((r) => `${r.verb} ${r.path}`),
        [],
        "requests the hub received for the refused children",
      );
      assert.equal(proxy.connections, 0, "connections that reached the cluster the RGD does not allow");

      await kubectl(["delete", gatePlural, "allowed", "out", "blank", "-n", appNs, "--timeout=60s"]);
      for (const name of ["allowed-steered", "allowed-fixed", "out-fixed", "blank-fixed"]) await remoteAbsent(name);
      assert.equal(proxy.connections, 0, "deletion looked for children in the cluster the RGD does not allow");
    } finally {
      await kubectl(["delete", "secret", "forbidden-kubeconfig", "-n", hubNs, "--ignore-not-found"]);
      await proxy.close();
    }
  });

  it("fails only the children of an unreachable cluster, deletes nothing, and recovers when it is back", async () => {
    const outage = b.restartComponent("kube-apiserver", { downtimeMs: 25_000 });
    await sleep(1500);
    await applyInstance("one", "v3", ["b"]);
    await eventually(
      async () => {
        assert.equal((await hubCm("one-hub")).data?.v, "v3");
      },
      { timeout: 20_000 },
    );
    await eventually(
      async () => {
        const status = JSON.stringify((await instance("one")).status);
        assert.match(status, /cluster \\"b\\"/, status);
      },
      { timeout: 20_000 },
    );
    await outage;
    await eventually(
      async () => {
        assert.equal((await remoteCm("one-b")).data?.v, "v3");
      },
      { timeout: 60_000 },
    );
    await eventually(
      async () => {
        assert.equal((await instance("one")).status?.state, "ACTIVE");
      },
      { timeout: 30_000 },
    );
    assert.equal((await remoteCm("one-fan-b")).data?.v, "v3");
  });

  it("takes a rotated registration Secret without a restart", async () => {
    await register(kubeconfigFor(b, "not-a-valid-token"));
    await applyInstance("one", "v4", ["b"]);
    await eventually(
      async () => {
        const status = JSON.stringify((await instance("one")).status);
        assert.match(status, /cluster \\"b\\".*(Unauthorized|401)/, status);
      },
      { timeout: 30_000 },
    );
    assert.equal((await remoteCm("one-b")).data?.v, "v3", "nothing reached b with the bad credentials");
    await register(kubeconfigFor(b));
    await eventually(
      async () => {
        assert.equal((await remoteCm("one-b")).data?.v, "v4");
      },
      { timeout: 30_000 },
    );
  });

  it("deleting the instance removes its children in every cluster", async () => {
    await kubectl(["delete", plural, "one", "-n", appNs, "--wait=false"]);
    await eventually(() => expectAbsent([plural, "one", "-n", appNs]), { timeout: 60_000 });
    await remoteAbsent("one-b");
    await remoteAbsent("one-fan-b");
    await expectAbsent(["configmap", "one-hub", "-n", appNs]);
    await expectAbsent(["configmap", "one-back", "-n", appNs]);
  });

  const inventoryInstance = (value: string) =>
    kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${inventoryKind}\nmetadata: { name: p1, namespace: ${appNs} }\nspec: { value: "${value}" }\n`,
    );
  const inventoryStatus = async () =>
    JSON.stringify((await kubectlJson<Instance>(["get", inventoryKind.toLowerCase() + "s", "p1", "-n", appNs])).status);
  const profileStatus = (healthy: "True" | "False", reason: string) =>
    kubectl([
      "patch",
      "clusterprofile",
      "inv",
      "-n",
      hubNs,
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({
        status: {
          accessProviders: [
            {
              name: "secretreader",
              cluster: { server: b.server, "certificate-authority-data": Buffer.from(b.caData).toString("base64") },
            },
          ],
          conditions: [
            {
              type: "ControlPlaneHealthy",
              status: healthy,
              reason,
              message: `set by the test (${reason})`,
              lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
            },
          ],
        },
      }),
    ]);

  it("registers a cluster from a ClusterProfile (the CRD installed after the start), credentials from its token Secret", async () => {
    await kubectl(["apply", "-f", PROFILE_CRD]);
    await eventually(() => kubectl(["get", "clusterprofiles", "-n", hubNs]), { timeout: 30_000 });
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: multicluster.x-k8s.io/v1alpha1
kind: ClusterProfile
metadata: { name: inv, namespace: ${hubNs}, labels: { x-k8s.io/cluster-manager: test } }
spec: { displayName: b through the inventory, clusterManager: { name: test } }
`,
    );
    await profileStatus("True", "Healthy");
    await kubectl(["create", "secret", "generic", "inv", "-n", hubNs, `--from-literal=token=${b.token}`]);
    await kubectl(
      ["apply", "-f", "-"],
      `
${rgdHeader(tc, inventoryRgd)}
  schema: { apiVersion: v1alpha1, kind: ${inventoryKind}, spec: { value: string } }
  resources:
    - id: placed
      cluster: inv
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-inv" }, data: { v: "\${schema.spec.value}" } }
`,
    );
    await waitRgdActive(inventoryRgd);
    await inventoryInstance("i1");
    // The API is looked for again at most every 30 s: the first passes may find "inv" unregistered.
    await eventually(
      async () => {
        assert.equal((await remoteCm("p1-inv")).data?.v, "i1");
      },
      { timeout: 90_000 },
    );
    assert.equal((await remoteCm("p1-inv")).metadata?.annotations?.["kro.run/cluster"], "inv");
    await eventually(
      async () => {
        assert.match(await inventoryStatus(), /"state":"ACTIVE"/);
      },
      { timeout: 30_000 },
    );
  });

  it("ControlPlaneHealthy=False on the profile holds the cluster's children, True releases them", async () => {
    await profileStatus("False", "Maintenance");
    await inventoryInstance("i2");
    await eventually(
      async () => {
        const status = await inventoryStatus();
        assert.match(status, /cluster \\"inv\\".*ControlPlaneHealthy=False \(Maintenance/, status);
      },
      { timeout: 30_000 },
    );
    assert.equal((await remoteCm("p1-inv")).data?.v, "i1", "nothing was written while the profile said unhealthy");
    await profileStatus("True", "Healthy");
    await eventually(
      async () => {
        assert.equal((await remoteCm("p1-inv")).data?.v, "i2");
      },
      { timeout: 30_000 },
    );
  });

  it("a kubeconfig Secret naming the same cluster wins over the profile; removing it falls back to the profile", async () => {
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: v1
kind: Secret
metadata: { name: inv-kubeconfig, namespace: ${hubNs}, labels: { kro.run/cluster-name: inv } }
data: { value: ${Buffer.from(kubeconfigFor(b, "not-a-valid-token")).toString("base64")} }
`,
    );
    await inventoryInstance("i3");
    await eventually(
      async () => {
        const status = await inventoryStatus();
        assert.match(status, /cluster \\"inv\\".*(Unauthorized|401)/, status);
      },
      { timeout: 30_000 },
    );
    assert.equal((await remoteCm("p1-inv")).data?.v, "i2");
    await kubectl(["delete", "secret", "inv-kubeconfig", "-n", hubNs]);
    await eventually(
      async () => {
        assert.equal((await remoteCm("p1-inv")).data?.v, "i3");
      },
      { timeout: 30_000 },
    );
    await kubectl(["delete", inventoryKind.toLowerCase() + "s", "p1", "-n", appNs]);
    await remoteAbsent("p1-inv");
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
