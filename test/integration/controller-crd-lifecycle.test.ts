/**
 * The CRD an RGD generates is kept in line with the RGD: deleted by hand, it comes back (and
 * instances are served again); a new optional field rolls out; a breaking schema change is
 * refused with a message naming the change until the RGD carries
 * `kro.run/allow-breaking-changes: "true"`.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

type Cond = { type: string; status: string; reason?: string; message?: string; observedGeneration?: number };
interface Obj {
  metadata: { name: string; uid: string; generation?: number; annotations?: Record<string, string> };
  data?: Record<string, string>;
  status?: { state?: string; conditions?: Cond[] };
}
interface Crd {
  metadata: { uid: string };
  spec: {
    versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }[];
  };
}

const suffix = letterSuffix();
const kind = `Shelf${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`; // a fixed ending keeps the plural predictable
const plural = `${kind.toLowerCase()}s`;
const crdName = `${plural}.kro.run`;
const rgdName = `shelf-${suffix}`;
const namespace = `crd-${suffix}`;
let tc: TestController;

function rgdYaml(specFields: string, annotations = "{}"): string {
  return `
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${tc.label.key}: "${tc.label.value}" }
  annotations: ${annotations}
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
${specFields}
  resources:
    - id: box
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-box" }
        data: { title: "\${schema.spec.title}" }
`;
}

const BASE = `      title: string | default="t"\n      size: integer | default=1\n`;
const WITH_COLOR = `${BASE}      color: string\n`;
const WITHOUT_SIZE = `      title: string | default="t"\n      color: string\n`;

const getRgd = () => kubectlJson<Obj>(["get", "rgd", rgdName]);
const condition = (o: Obj, type: string) => (o.status?.conditions ?? []).find((c) => c.type === type);
const specFields = async () =>
  Object.keys(
    (await kubectlJson<Crd>(["get", "crd", crdName])).spec.versions[0]?.schema.openAPIV3Schema.properties.spec
      .properties ?? {},
  ).sort();

async function activeAtCurrentGeneration(): Promise<void> {
  await eventually(
    async () => {
      const rgd = await getRgd();
      assert.equal(rgd.status?.state, "Active", JSON.stringify(rgd.status));
      assert.ok(
        rgd.status.conditions?.every((c) => c.observedGeneration === rgd.metadata.generation),
        "conditions are for the current generation",
      );
    },
    { timeout: 60_000 },
  );
}

describe("the generated CRD over the RGD's life", { timeout: 180_000 }, () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], rgdYaml(BASE));
    await activeAtCurrentGeneration();
  });
  after(async () => {
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
  });

  it("restores a CRD deleted by hand and serves instances of it again", async () => {
    const before = await kubectlJson<Crd>(["get", "crd", crdName]);
    await kubectl(["delete", "crd", crdName, "--wait=false"]);
    const restored = await eventually(
      async () => {
        const crd = await kubectlJson<Crd>(["get", "crd", crdName]);
        assert.notEqual(crd.metadata.uid, before.metadata.uid);
        return crd;
      },
      { timeout: 30_000 },
    );
    assert.ok(restored.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties.size !== undefined);
    await eventually(async () => {
      assert.equal((await getRgd()).status?.state, "Active");
    });
    await eventually(() =>
      kubectl(
        ["apply", "-f", "-"],
        `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: after, namespace: ${namespace} }\nspec: { title: back }\n`,
      ),
    );
    await eventually(
      async () => {
        assert.equal((await kubectlJson<Obj>(["get", "configmap", "after-box", "-n", namespace])).data?.title, "back");
      },
      { timeout: 60_000 },
    );
  });

  it("rolls out a new optional field (non-breaking) at once", async () => {
    await kubectl(["apply", "-f", "-"], rgdYaml(WITH_COLOR));
    await activeAtCurrentGeneration();
    assert.deepEqual(await specFields(), ["color", "size", "title"]);
  });

  it("refuses a breaking change, naming it, and keeps the old CRD and graph", async () => {
    await kubectl(["apply", "-f", "-"], rgdYaml(WITHOUT_SIZE));
    const kindReady = await eventually(
      async () => {
        const c = condition(await getRgd(), "KindReady");
        assert.equal(c?.status, "False", JSON.stringify(c));
        return c;
      },
      { timeout: 30_000 },
    );
    assert.equal(kindReady.reason, "BreakingChanges");
    assert.match(kindReady.message ?? "", /spec\.size: property removed/);
    assert.match(kindReady.message ?? "", /kro\.run\/allow-breaking-changes/);
    assert.equal((await getRgd()).status?.state, "Inactive");
    assert.deepEqual(await specFields(), ["color", "size", "title"], "the CRD is untouched");
    // Instances keep being served by the last graph that had a kind.
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: kro.run/v1alpha1\nkind: ${kind}\nmetadata: { name: after, namespace: ${namespace} }\nspec: { title: still }\n`,
    );
    await eventually(
      async () => {
        assert.equal((await kubectlJson<Obj>(["get", "configmap", "after-box", "-n", namespace])).data?.title, "still");
      },
      { timeout: 60_000 },
    );
  });

  it("applies the breaking change once the RGD allows it", async () => {
    await kubectl(["apply", "-f", "-"], rgdYaml(WITHOUT_SIZE, `{ kro.run/allow-breaking-changes: "true" }`));
    await activeAtCurrentGeneration();
    assert.deepEqual(await specFields(), ["color", "title"]);
    assert.equal(condition(await getRgd(), "KindReady")?.status, "True");
  });
});
