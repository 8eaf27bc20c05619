/**
 * The controller's lifecycle story on the real API server: an RGD becomes an API, an instance
 * converges, updates roll out, drift is corrected, excluded children are pruned, a converged
 * instance costs no writes, and deletion removes exactly what the instance created.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, expectAbsent } from "../support/test-cluster.js";
import { rgdHeader, letterSuffix, startTestController, type TestController } from "../support/controller.js";

interface Obj {
  metadata: {
    name: string;
    uid: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
  };
  data?: Record<string, string>;
  status?: Record<string, unknown>;
}
type Cond = { type: string; status: string; reason?: string; message?: string };

const suffix = letterSuffix();
const kind = `Chain${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`; // a fixed ending keeps the plural predictable
const plural = `${kind.toLowerCase()}s`;
const rgdName = `chain-${suffix}`;
const namespace = `ctl-${suffix}`;
let tc: TestController;

function rgdYaml(extra = ""): string {
  return `
${rgdHeader(tc, rgdName)}
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      greeting: string | default="hello"
      withExtra: boolean | default=false
    status:
      first: \${first.data.value}
  resources:
    - id: first
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-first" }
        data: { value: "\${schema.spec.greeting}" }
    - id: second
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-second" }
        data: { value: "\${first.data.value + '-second'}" }
    - id: extra
      includeWhen: ["\${schema.spec.withExtra}"]
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-extra" }
        data: { value: "extra" }
${extra}`;
}

const instanceYaml = (spec: string) =>
  `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: demo, namespace: ${namespace} }\nspec: ${spec}\n`;
const getCm = (name: string) => kubectlJson<Obj>(["get", "configmap", name, "-n", namespace]);
const getInstance = () => kubectlJson<Obj>(["get", plural, "demo", "-n", namespace]);
const conditions = (o: Obj) => new Map(((o.status?.conditions ?? []) as Cond[]).map((c) => [c.type, c]));

/** Write requests the API server has served for one resource, from its own /metrics. */
const absent = expectAbsent;

describe("controller lifecycle (CEL dialect)", () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("turns the RGD into an Active API with its CRD", async () => {
    await kubectl(["apply", "-f", "-"], rgdYaml());
    const rgd = await eventually(async () => {
      const o = await kubectlJson<Obj>(["get", "rgd", rgdName]);
      assert.equal(o.status?.state, "Active", JSON.stringify(o.status));
      return o;
    });
    assert.deepEqual(rgd.status?.topologicalOrder, ["first", "second", "extra"]);
    assert.equal(conditions(rgd).get("Ready")?.status, "True");
    assert.ok(rgd.metadata.finalizers?.includes("kro.run/finalizer"));
    const crd = await kubectlJson<Obj>(["get", "crd", `${plural}.kro.run`]);
    assert.equal(crd.metadata.labels?.["kro.run/resource-graph-definition-name"], rgdName);
  });

  it("converges an instance: children in order, status projected, Ready", async () => {
    await kubectl(["apply", "-f", "-"], instanceYaml("{}"));
    const second = await eventually(() => getCm("demo-second"));
    assert.equal(second.data?.value, "hello-second");
    assert.equal(second.metadata.labels?.["kro.run/node-id"], "second");
    const instance = await eventually(async () => {
      const o = await getInstance();
      assert.equal(o.status?.state, "ACTIVE", JSON.stringify(o.status));
      return o;
    });
    assert.equal(instance.status?.first, "hello");
    assert.equal(conditions(instance).get("Ready")?.status, "True");
    assert.ok(instance.metadata.finalizers?.includes("kro.run/finalizer"));
    await absent(["configmap", "demo-extra", "-n", namespace]);
  });

  it("rolls out a spec change to dependents", async () => {
    await kubectl(["apply", "-f", "-"], instanceYaml("{ greeting: hi }"));
    await eventually(async () => {
      assert.equal((await getCm("demo-second")).data?.value, "hi-second");
    });
    await eventually(async () => {
      assert.equal((await getInstance()).status?.first, "hi");
    });
  });

  it("recreates a deleted child and restores a hand-edited field", async () => {
    const before = await getCm("demo-second");
    await kubectl(["delete", "configmap", "demo-second", "-n", namespace]);
    await eventually(async () => {
      assert.notEqual((await getCm("demo-second")).metadata.uid, before.metadata.uid);
    });
    await kubectl([
      "patch",
      "configmap",
      "demo-first",
      "-n",
      namespace,
      "--type=merge",
      "-p",
      '{"data":{"value":"tampered","other":"kept"}}',
    ]);
    await eventually(async () => {
      const first = await getCm("demo-first");
      assert.equal(first.data?.value, "hi");
      assert.equal(first.data.other, "kept", "a field another manager owns is left alone");
    });
  });

  it("sends no write for a converged instance on resync", async () => {
    await eventually(async () => {
      assert.equal((await getInstance()).status?.state, "ACTIVE");
    });
    // Wait for quiet: a status write still in flight from the last reconcile must not count.
    const versions = async () =>
      JSON.stringify(
        await Promise.all(
          [getInstance(), getCm("demo-first"), getCm("demo-second")].map(
            async (o) => (await o).metadata.resourceVersion,
          ),
        ),
      );
    const before = await eventually(async () => {
      const first = await versions();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(await versions(), first);
      return first;
    });
    const mark = tc.requests.length;
    const evaluations = tc.evaluated.length;
    tc.controller.resync();
    await eventually(() => {
      assert.ok(tc.evaluated.slice(evaluations).includes(`${namespace}/demo`), "the instance was reconciled again");
    });
    await eventually(() => {
      assert.equal(tc.controller.served.all().length > 0, true);
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Every request the controller sent (events included: same client), and what the API server
    // holds: neither the instance nor a child changed. (The API server's per-kind write counter
    // also counts other clients' requests to the kind, so it is not a precise witness here.)
    assert.deepEqual(
      tc.writes(mark).map((r) => `${r.verb} ${r.path} ${r.status}`),
      [],
    );
    assert.equal(await versions(), before, "the instance and its children are unchanged");
  });

  it("creates and prunes a child as includeWhen flips, never deleting a look-alike it did not create", async () => {
    await kubectl(["apply", "-f", "-"], instanceYaml("{ greeting: hi, withExtra: true }"));
    await eventually(() => getCm("demo-extra"));
    const copied = (await getCm("demo-first")).metadata.labels;
    const lookalike = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "demo-lookalike", namespace, labels: { ...copied, "kro.run/node-id": "extra" } },
      data: { v: "1" },
    };
    await kubectl(["apply", "-f", "-"], JSON.stringify(lookalike));
    await kubectl(["apply", "-f", "-"], instanceYaml("{ greeting: hi, withExtra: false }"));
    await eventually(() => absent(["configmap", "demo-extra", "-n", namespace]));
    await eventually(async () => {
      assert.equal((await getInstance()).status?.state, "ACTIVE");
    });
    assert.equal((await getCm("demo-lookalike")).data?.v, "1");
  });

  it("keeps serving instances with the last good graph when an RGD edit is invalid", async () => {
    await kubectl(
      ["apply", "-f", "-"],
      rgdYaml(
        '    - id: broken\n      template: { apiVersion: v1, kind: ConfigMap, metadata: { name: "${nope.x}" } }\n',
      ),
    );
    await eventually(async () => {
      const rgd = await kubectlJson<Obj>(["get", "rgd", rgdName]);
      const accepted = conditions(rgd).get("ResourceGraphAccepted");
      assert.equal(accepted?.status, "False");
      assert.match(accepted.message ?? "", /nope/);
    });
    await kubectl(["apply", "-f", "-"], instanceYaml("{ greeting: again }"));
    await eventually(async () => {
      assert.equal((await getCm("demo-second")).data?.value, "again-second");
    });
    await kubectl(["apply", "-f", "-"], rgdYaml());
    await eventually(async () => {
      assert.equal(
        conditions(await kubectlJson<Obj>(["get", "rgd", rgdName])).get("ResourceGraphAccepted")?.status,
        "True",
      );
    });
  });

  it("deletes the children it created, then the instance", async () => {
    await kubectl(["delete", plural, "demo", "-n", namespace, "--wait=false"]);
    await eventually(() => absent([plural, "demo", "-n", namespace]));
    await absent(["configmap", "demo-first", "-n", namespace]);
    await absent(["configmap", "demo-second", "-n", namespace]);
    assert.equal((await getCm("demo-lookalike")).data?.v, "1", "an object we did not create survives");
  });

  it("deleting the RGD waits for its instances instead of stranding them", async () => {
    await kubectl(["apply", "-f", "-"], instanceYaml("{ greeting: last }"));
    await eventually(async () => {
      assert.equal((await getInstance()).status?.state, "ACTIVE");
    });
    await kubectl(["delete", "rgd", rgdName, "--wait=false"]);
    await eventually(async () => {
      const ready = conditions(await kubectlJson<Obj>(["get", "rgd", rgdName])).get("Ready");
      assert.equal(ready?.reason, "InstancesExist");
      assert.match(ready.message ?? "", /demo/);
    });
    await kubectl(["delete", plural, "demo", "-n", namespace, "--wait=false"]);
    await eventually(() => absent(["rgd", rgdName]), { timeout: 30_000 });
    await absent(["configmap", "demo-first", "-n", namespace]);
  });
});
