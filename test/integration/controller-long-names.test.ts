/**
 * Names longer than a label value (63 characters) converge: an instance named with 200
 * characters gets its children (a ConfigMap and a forEach collection), its children carry the
 * shortened owner label, a child deleted behind the controller's back is recreated through the
 * child watch (no safety-net requeue in this test), and deleting the instance removes them all.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { expectAbsent, kubectl, kubectlJson } from "../support/test-cluster.js";
import {
  letterSuffix,
  rgdHeader,
  startTestController,
  waitRgdActive,
  type TestController,
} from "../support/controller.js";

interface Obj {
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  status?: { state?: string; first?: string };
}

const suffix = letterSuffix();
const kind = `Long${suffix}App`;
const plural = `${kind.toLowerCase()}s`;
const namespace = `long-${suffix}`;
const rgdName = `long-${suffix}`;
const name = `n${"x".repeat(199 - 1 - suffix.length)}-${suffix}`; // 200 characters: a valid object name, far over 63
let tc: TestController;

describe("long instance names", { timeout: 180_000 }, () => {
  before(async () => {
    // No safety-net requeue: only watch events can wake the instance, so routing must work.
    tc = await startTestController({ requeueIntervalMs: 600_000 });
    await kubectl(["create", "namespace", namespace]);
    await kubectl(
      ["apply", "-f", "-"],
      `${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      regions: "[]string | default=[\\"eu\\", \\"us\\"]"
    status:
      first: \${box.data.value}
  resources:
    - id: box
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}" }
        data: { value: "box" }
    - id: perRegion
      forEach:
        - region: \${schema.spec.regions}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-\${region}" }
        data: { region: "\${region}" }
`,
    );
    await waitRgdActive(rgdName);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("converges, routes child events to the instance, and deletes cleanly", async () => {
    assert.equal(name.length, 200);
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: {}\n`,
    );
    await eventually(
      async () => {
        const instance = await kubectlJson<Obj>(["get", plural, name, "-n", namespace]);
        assert.equal(instance.status?.state, "ACTIVE", JSON.stringify(instance.status));
        assert.equal(instance.status.first, "box");
      },
      { timeout: 60_000 },
    );
    const box = await kubectlJson<Obj>(["get", "configmap", name, "-n", namespace]);
    const label = box.metadata.labels?.["kro.run/instance-name"] ?? "";
    assert.equal(label.length, 63);
    assert.ok(label.startsWith(name.slice(0, 40)), label);
    for (const region of ["eu", "us"]) {
      const item = await kubectlJson<Obj>(["get", "configmap", `${name}-${region}`, "-n", namespace]);
      assert.equal(item.metadata.labels?.["kro.run/instance-name"], label);
    }

    // Deleted behind the controller's back: the watch event must find the long-named instance.
    await kubectl(["delete", "configmap", `${name}-eu`, "-n", namespace]);
    await eventually(
      async () => {
        const item = await kubectlJson<Obj>(["get", "configmap", `${name}-eu`, "-n", namespace]);
        assert.equal(item.data?.region, "eu");
      },
      { timeout: 30_000 },
    );

    await kubectl(["delete", plural, name, "-n", namespace, "--wait=false"]);
    await eventually(
      async () => {
        await expectAbsent([plural, name, "-n", namespace]);
        for (const child of [name, `${name}-eu`, `${name}-us`])
          await expectAbsent(["configmap", child, "-n", namespace]);
      },
      { timeout: 60_000 },
    );
  });
});
