/**
 * How an instance follows its graph: a resource removed from the RGD is pruned from existing
 * instances, an includeWhen that turns true again recreates its child, readyWhen holds
 * dependents until a dependency is ready (a ConfigMap someone approves, a Deployment kwok makes
 * available), and a forEach collection grows and shrinks with the spec list, its dependents
 * waiting until every item passes the `each` readyWhen.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import type { KubeObject } from "../../src/index.js";
import { recordText } from "../support/instance-record.js";
import { kubectl, kubectlJson, expectAbsent } from "../support/test-cluster.js";
import {
  waitRgdActive,
  rgdHeader,
  letterSuffix,
  startTestController,
  type TestController,
} from "../support/controller.js";

interface Obj {
  metadata: { name: string; uid: string; generation?: number };
  data?: Record<string, string>;
  status?: Record<string, unknown>;
}

const suffix = letterSuffix();
const cap = suffix.charAt(0).toUpperCase() + suffix.slice(1);
const namespace = `shp-${suffix}`;
let tc: TestController;

const header = (name: string, kind: string, spec: string, status = "") => `
${rgdHeader(tc, name)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
${spec}
${status}
  resources:
`;
const configMap = (id: string, extra = "", data = `{ v: "${id}" }`) => `    - id: ${id}
${extra}      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-${id.toLowerCase()}" }
        data: ${data}
`;

const getCm = (name: string) => kubectlJson<Obj>(["get", "configmap", name, "-n", namespace]);
const getObj = (plural: string, name: string) => kubectlJson<Obj>(["get", plural, name, "-n", namespace]);
const absent = (args: string[]) => expectAbsent([...args, "-n", namespace]);
const instance = (kind: string, name: string, spec: string) =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: ${spec}\n`;

describe("instances follow their graph", { timeout: 240_000 }, () => {
  const rgds: string[] = [];
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    await tc.stop();
    if (rgds.length > 0) await kubectl(["delete", "rgd", ...rgds, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("prunes a resource removed from the RGD and recreates a child whose includeWhen turns true again", async () => {
    const kind = `Pantry${cap}App`; // a fixed ending keeps the plural predictable
    const plural = `${kind.toLowerCase()}s`;
    const name = `pantry-${suffix}`;
    rgds.push(name);
    const spec = "      withOpt: boolean | default=true";
    const v1 =
      header(name, kind, spec) +
      configMap("keep") +
      configMap("drop") +
      configMap("opt", `      includeWhen: ["\${schema.spec.withOpt}"]\n`);
    const v2 =
      header(name, kind, spec) +
      configMap("keep") +
      configMap("opt", `      includeWhen: ["\${schema.spec.withOpt}"]\n`);
    await kubectl(["apply", "-f", "-"], v1);
    await waitRgdActive(name);
    await kubectl(["apply", "-f", "-"], instance(kind, "p", "{}"));
    await eventually(async () => {
      assert.equal((await getObj(plural, "p")).status?.state, "ACTIVE");
    });
    const [keep, opt] = await Promise.all([getCm("p-keep"), getCm("p-opt"), getCm("p-drop")]);

    await kubectl(["apply", "-f", "-"], instance(kind, "p", "{ withOpt: false }"));
    await eventually(() => absent(["configmap", "p-opt"]));
    await kubectl(["apply", "-f", "-"], instance(kind, "p", "{ withOpt: true }"));
    const recreated = await eventually(() => getCm("p-opt"));
    assert.notEqual(recreated.metadata.uid, opt.metadata.uid, "a new object, not the pruned one");
    await eventually(async () => {
      assert.equal((await getObj(plural, "p")).status?.state, "ACTIVE");
    });

    await kubectl(["apply", "-f", "-"], v2);
    await eventually(() => absent(["configmap", "p-drop"]), { timeout: 30_000 });
    assert.equal(
      (await getCm("p-keep")).metadata.uid,
      keep.metadata.uid,
      "resources still in the graph are left in place",
    );
    assert.equal((await getCm("p-opt")).metadata.uid, recreated.metadata.uid);
    await eventually(async () => {
      const inventory = recordText(await kubectlJson<KubeObject>(["get", plural, "p", "-n", namespace]));
      assert.ok(inventory.includes("p-keep"), inventory);
      assert.doesNotMatch(inventory, /p-drop/);
    });
  });

  it("readyWhen holds a dependent until its dependencies are ready (an approved ConfigMap, an available Deployment)", async () => {
    const kind = `Gate${cap}App`; // a fixed ending keeps the plural predictable
    const plural = `${kind.toLowerCase()}s`;
    const name = `gate-${suffix}`;
    rgds.push(name);
    const rgd =
      header(
        name,
        kind,
        "      image: string | default=nginx",
        "    status:\n      replicas: ${web.status.?availableReplicas.orValue(0)}",
      ) +
      configMap("approval", `      readyWhen: ["\${approval.data.?approved.orValue('no') == 'yes'}"]\n`) +
      `    - id: web
      readyWhen: ["\${web.status.?availableReplicas.orValue(0) >= 1}"]
      template:
        apiVersion: apps/v1
        kind: Deployment
        metadata: { name: "\${schema.metadata.name}-web" }
        spec:
          replicas: 1
          selector: { matchLabels: { app: "\${schema.metadata.name}-web" } }
          template:
            metadata: { labels: { app: "\${schema.metadata.name}-web" } }
            spec: { containers: [{ name: web, image: "\${schema.spec.image}" }] }
` +
      configMap(
        "after",
        "",
        `{ approvedBy: "\${approval.data.approved}", available: "\${string(web.status.availableReplicas)}" }`,
      );
    await kubectl(["apply", "-f", "-"], rgd);
    await waitRgdActive(name);
    await kubectl(["apply", "-f", "-"], instance(kind, "g", "{}"));
    await eventually(
      async () => {
        const deploy = await kubectlJson<{ status?: { availableReplicas?: number } }>([
          "get",
          "deployment",
          "g-web",
          "-n",
          namespace,
        ]);
        assert.equal(deploy.status?.availableReplicas, 1);
      },
      { timeout: 60_000 },
    );
    await eventually(async () => {
      assert.equal((await getObj(plural, "g")).status?.replicas, 1);
    });
    // The Deployment is ready, the approval is not: the dependent must not exist yet.
    await absent(["configmap", "g-after"]);
    assert.equal((await getObj(plural, "g")).status?.state, "IN_PROGRESS");

    await kubectl([
      "patch",
      "configmap",
      "g-approval",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      '{"data":{"approved":"yes"}}',
    ]);
    const dependent = await eventually(() => getCm("g-after"), { timeout: 15_000 });
    assert.deepEqual(dependent.data, { approvedBy: "yes", available: "1" });
    await eventually(async () => {
      assert.equal((await getObj(plural, "g")).status?.state, "ACTIVE");
    });
    assert.equal((await getCm("g-approval")).data?.approved, "yes", "the approver's field survives our applies");
  });

  it("grows and shrinks a forEach collection; its dependent waits for every item's readyWhen (each)", async () => {
    const kind = `Shard${cap}App`; // a fixed ending keeps the plural predictable
    const plural = `${kind.toLowerCase()}s`;
    const name = `shard-${suffix}`;
    rgds.push(name);
    const rgd =
      header(name, kind, '      regions: "[]string | default=[]"', "    status:\n      count: ${summary.data.count}") +
      `    - id: cells
      forEach: [{ region: "\${schema.spec.regions}" }]
      readyWhen: ["\${each.data.?ready.orValue('') == 'yes'}"]
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-cell-\${region}" }
        data: { region: "\${region}" }
` +
      configMap("summary", "", `{ count: "\${string(size(cells))}" }`);
    await kubectl(["apply", "-f", "-"], rgd);
    await waitRgdActive(name);
    const ready = (region: string) =>
      kubectl([
        "patch",
        "configmap",
        `s-cell-${region}`,
        "-n",
        namespace,
        "--type=merge",
        "-p",
        '{"data":{"ready":"yes"}}',
      ]);
    const cells = async () =>
      (
        await kubectl([
          "get",
          "configmaps",
          "-n",
          namespace,
          "-l",
          `kro.run/node-id=cells,kro.run/instance-name=s`,
          "-o",
          "name",
        ])
      )
        .trim()
        .split("\n")
        .filter((l) => l !== "")
        .sort();

    await kubectl(["apply", "-f", "-"], instance(kind, "s", "{ regions: [eu, us] }"));
    await eventually(async () => {
      assert.deepEqual(await cells(), ["configmap/s-cell-eu", "configmap/s-cell-us"]);
    });
    await ready("eu");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await absent(["configmap", "s-summary"]);
    await ready("us");
    await eventually(async () => {
      assert.equal((await getCm("s-summary")).data?.count, "2");
    });

    await kubectl(["apply", "-f", "-"], instance(kind, "s", "{ regions: [eu, us, ap] }"));
    await eventually(async () => {
      assert.equal((await cells()).length, 3);
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal((await getCm("s-summary")).data?.count, "2", "the dependent waits while the new item is not ready");
    assert.equal((await getObj(plural, "s")).status?.state, "IN_PROGRESS");
    await ready("ap");
    await eventually(async () => {
      assert.equal((await getCm("s-summary")).data?.count, "3");
    });

    await kubectl(["apply", "-f", "-"], instance(kind, "s", "{ regions: [ap] }"));
    await eventually(async () => {
      assert.deepEqual(await cells(), ["configmap/s-cell-ap"]);
    });
    await eventually(async () => {
      assert.equal((await getCm("s-summary")).data?.count, "1");
      const o = await getObj(plural, "s");
      assert.equal(o.status?.state, "ACTIVE");
      assert.equal(o.status.count, "1");
    });
  });
});
