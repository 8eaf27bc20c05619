/**
 * Deletion stories: an instance is deleted wave by wave (a dependent's finalizer holds its wave
 * and everything below it), a cluster-scoped instance with namespaced children converges and
 * deletes cleanly, and nested RGDs (an RGD whose child is another RGD's instance) delete all the
 * way down.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { expectAbsent, kubectl, kubectlJson } from "../support/test-cluster.js";
import {
  waitRgdActive,
  rgdHeader,
  letterSuffix,
  startTestController,
  type TestController,
} from "../support/controller.js";

interface Obj {
  metadata: {
    name: string;
    uid: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    labels?: Record<string, string>;
  };
  data?: Record<string, string>;
  status?: Record<string, unknown>;
}

const suffix = letterSuffix();
const cap = suffix.charAt(0).toUpperCase() + suffix.slice(1);
const namespace = `del-${suffix}`;
let tc: TestController;
const rgds: string[] = [];

async function defineRgd(name: string, body: string): Promise<void> {
  rgds.push(name);
  await kubectl(
    ["apply", "-f", "-"],
    `
${rgdHeader(tc, name)}
${body}`,
  );
  await waitRgdActive(name);
}
const getCm = (name: string, ns = namespace) => kubectlJson<Obj>(["get", "configmap", name, "-n", ns]);
const gone = expectAbsent;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("deletion", { timeout: 240_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    await kubectl([
      "patch",
      "configmap",
      "w-top",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":null}}',
    ]).catch(() => "");
    await tc.stop();
    if (rgds.length > 0) await kubectl(["delete", "rgd", ...rgds, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("deletes in reverse dependency waves; a child finalizer holds its wave until removed", async () => {
    const kind = `Tower${cap}App`; // a fixed ending keeps the plural predictable
    const plural = `${kind.toLowerCase()}s`;
    await defineRgd(
      `tower-${suffix}`,
      `  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec: { floors: string | default=x }
  resources:
    - id: base
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-base" }, data: { v: "\${schema.spec.floors}" } }
    - id: middle
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-middle" }, data: { v: "\${base.data.v}" } }
    - id: top
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-top" }, data: { v: "\${middle.data.v}" } }
`,
    );
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: w, namespace: ${namespace} }\nspec: {}\n`,
    );
    await eventually(async () => {
      assert.equal((await kubectlJson<Obj>(["get", plural, "w", "-n", namespace])).status?.state, "ACTIVE");
    });
    await kubectl([
      "patch",
      "configmap",
      "w-top",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":["example.com/hold"]}}',
    ]);

    await kubectl(["delete", plural, "w", "-n", namespace, "--wait=false"]);
    await eventually(async () => {
      assert.ok((await getCm("w-top")).metadata.deletionTimestamp !== undefined, "the top wave is being deleted");
    });
    await eventually(async () => {
      assert.equal((await kubectlJson<Obj>(["get", plural, "w", "-n", namespace])).status?.state, "DELETING");
    });
    await sleep(2500);
    const [middle, base] = await Promise.all([getCm("w-middle"), getCm("w-base")]);
    assert.equal(middle.metadata.deletionTimestamp, undefined, "lower waves wait for the held one");
    assert.equal(base.metadata.deletionTimestamp, undefined);
    const instance = await kubectlJson<Obj>(["get", plural, "w", "-n", namespace]);
    assert.ok(instance.metadata.finalizers?.includes("kro.run/finalizer"), "the instance waits too");

    await kubectl([
      "patch",
      "configmap",
      "w-top",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":null}}',
    ]);
    await eventually(() => gone([plural, "w", "-n", namespace]), { timeout: 30_000 });
    await gone(["configmap", "w-middle", "-n", namespace]);
    await gone(["configmap", "w-base", "-n", namespace]);
  });

  it("runs a cluster-scoped instance with namespaced children and deletes it cleanly", async () => {
    const kind = `Estate${cap}App`; // a fixed ending keeps the plural predictable
    const plural = `${kind.toLowerCase()}s`;
    await defineRgd(
      `estate-${suffix}`,
      `  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    scope: Cluster
    spec: { target: string | required=true }
    status:
      where: \${plot.metadata.namespace}
  resources:
    - id: plot
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-plot", namespace: "\${schema.spec.target}" }
        data: { owner: "\${schema.metadata.name}" }
`,
    );
    const crd = await kubectlJson<{ spec: { scope: string } }>(["get", "crd", `${plural}.kro.run`]);
    assert.equal(crd.spec.scope, "Cluster");
    const name = `estate-${suffix}`;
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name} }\nspec: { target: ${namespace} }\n`,
    );
    const instance = await eventually(async () => {
      const o = await kubectlJson<Obj>(["get", plural, name]);
      assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
      return o;
    });
    assert.equal(instance.status?.where, namespace);
    const plot = await getCm(`${name}-plot`);
    assert.equal(plot.data?.owner, name);
    assert.equal(
      plot.metadata.labels?.["kro.run/instance-namespace"],
      undefined,
      "no instance namespace on a cluster-scoped instance's children",
    );
    await kubectl(["delete", plural, name, "--wait=false"]);
    await eventually(() => gone([plural, name]), { timeout: 30_000 });
    await gone(["configmap", `${name}-plot`, "-n", namespace]);
  });

  it("deletes nested instances (an RGD whose child is another RGD's instance) all the way down", async () => {
    const inner = `Room${cap}App`; // a fixed ending keeps the plural predictable
    const outer = `House${cap}App`; // a fixed ending keeps the plural predictable
    await defineRgd(
      `room-${suffix}`,
      `  schema:
    apiVersion: v1alpha1
    kind: ${inner}
    spec: { color: string | default=white }
    status:
      color: \${paint.data.color}
  resources:
    - id: paint
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-paint" }, data: { color: "\${schema.spec.color}" } }
`,
    );
    await defineRgd(
      `house-${suffix}`,
      `  schema:
    apiVersion: v1alpha1
    kind: ${outer}
    spec: { color: string | default=blue }
    status:
      roomColor: \${room.status.?color.orValue("")}
  resources:
    - id: room
      readyWhen: ["\${room.status.?state.orValue('') == 'ACTIVE'}"]
      template:
        apiVersion: kro.run/v1alpha1
        kind: ${inner}
        metadata: { name: "\${schema.metadata.name}-room" }
        spec: { color: "\${schema.spec.color}" }
    - id: sign
      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "\${schema.metadata.name}-sign" }, data: { room: "\${room.metadata.name}" } }
`,
    );
    const roomPlural = `${inner.toLowerCase()}s`;
    const housePlural = `${outer.toLowerCase()}s`;
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${outer}\nmetadata: { name: h, namespace: ${namespace} }\nspec: {}\n`,
    );
    await eventually(
      async () => {
        const house = await kubectlJson<Obj>(["get", housePlural, "h", "-n", namespace]);
        assert.equal(house.status?.state, "ACTIVE", JSON.stringify(house.status));
        assert.equal(house.status.roomColor, "blue");
      },
      { timeout: 30_000 },
    );
    assert.equal((await getCm("h-room-paint")).data?.color, "blue");
    assert.equal((await getCm("h-sign")).data?.room, "h-room");

    await kubectl(["delete", housePlural, "h", "-n", namespace, "--wait=false"]);
    await eventually(() => gone([housePlural, "h", "-n", namespace]), { timeout: 30_000 });
    await gone([roomPlural, "h-room", "-n", namespace]);
    await gone(["configmap", "h-room-paint", "-n", namespace]);
    await gone(["configmap", "h-sign", "-n", namespace]);
  });
});
