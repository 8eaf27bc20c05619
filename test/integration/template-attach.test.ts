/**
 * Template dialect, the attach-to-your-CRD rules (docs/reference/seed-dialect.md §2) on the real
 * API server: a missing CRD is reported and picked up when it appears, status storage is added to a
 * CRD that has none (and an Event says so), and a second RGD for the same kind is refused by name.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

const id = letterSuffix();
const group = `${id}.attach.example.com`;
const kind = `Widget${id.charAt(0).toUpperCase()}${id.slice(1)}`;
const plural = `${kind.toLowerCase()}s`;
const namespace = `attach-${id}`;
type Cond = { type: string; status: string; reason?: string; message?: string };
interface Rgd {
  status?: { state?: string; conditions?: Cond[] };
}

let tc: TestController;
const rgd = (name: string) => `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: { name: ${name}, labels: { ${tc.label.key}: "${tc.label.value}" } }
spec:
  resourceKind: { group: ${group}, kind: ${kind}, version: v1 }
  childResources:
    - apiVersion: v1
      kind: ConfigMap
      nameTemplate: "{{.parent.metadata.name}}-cfg"
      template: |
        data:
          size: "{{.parent.spec.size}}"
  statusMappings:
    - childResource: { kind: ConfigMap, name: "{{.parent.metadata.name}}-cfg" }
      fieldMappings:
        - { child: data.size, parent: status.size }
`;
// A user's CRD with no status schema and no status subresource.
const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: ${plural}.${group} }
spec:
  group: ${group}
  scope: Namespaced
  names: { kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()} }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { size: { type: string } } }
`;
const condition = async (name: string, type: string) =>
  ((await kubectlJson<Rgd>(["get", "rgd", name])).status?.conditions ?? []).find((c) => c.type === type);

describe("template dialect: attaching to the user's CRD", () => {
  before(async () => {
    tc = await startTestController();
    await kubectl(["create", "namespace", namespace]);
  });
  after(async () => {
    await kubectl(["delete", "namespace", namespace, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", `${plural}.${group}`, "--wait=false", "--ignore-not-found"]);
    await tc.stop();
  });

  it("reports a missing CRD and becomes Active by itself once it appears", async () => {
    await kubectl(["apply", "-f", "-"], rgd(`first-${id}`));
    await eventually(async () => {
      const ready = await condition(`first-${id}`, "KindReady");
      assert.equal(ready?.status, "False");
      assert.equal(ready.reason, "CRDNotFound");
      assert.match(ready.message ?? "", new RegExp(`${kind}\\.${group.replaceAll(".", "\\.")}`));
    });
    await kubectl(["apply", "-f", "-"], crd);
    await eventually(async () => {
      assert.equal((await kubectlJson<Rgd>(["get", "rgd", `first-${id}`])).status?.state, "Active");
    });
  });

  it("adds status storage to the CRD, says so in an Event, and writes mapped status", async () => {
    const live = await kubectlJson<{
      spec: {
        versions: {
          subresources?: { status?: object };
          schema: { openAPIV3Schema: { properties: Record<string, object> } };
        }[];
      };
    }>(["get", "crd", `${plural}.${group}`]);
    const [v1] = live.spec.versions;
    assert.ok(v1?.subresources?.status, "status subresource added");
    assert.ok(v1.schema.openAPIV3Schema.properties.status, "status schema added");
    assert.ok(v1.schema.openAPIV3Schema.properties.spec, "the user's own schema is untouched");
    const events = await kubectl([
      "get",
      "events",
      "-n",
      "default",
      "--field-selector",
      `involvedObject.name=first-${id},reason=StatusStorageAdded`,
      "-o",
      "name",
    ]);
    assert.notEqual(events.trim(), "");
    await kubectl(
      ["apply", "-f", "-"],
      `apiVersion: ${group}/v1\nkind: ${kind}\nmetadata: { name: w, namespace: ${namespace} }\nspec: { size: large }\n`,
    );
    await eventually(async () => {
      const w = await kubectlJson<{ status?: { size?: string; state?: string } }>([
        "get",
        plural,
        "w",
        "-n",
        namespace,
      ]);
      assert.equal(w.status?.size, "large");
      assert.equal(w.status.state, "ACTIVE");
    });
  });

  it("refuses a second RGD for the same kind, naming the first", async () => {
    await kubectl(["apply", "-f", "-"], rgd(`second-${id}`));
    await eventually(async () => {
      const ready = await condition(`second-${id}`, "KindReady");
      assert.equal(ready?.status, "False");
      assert.match(ready.message ?? "", new RegExp(`first-${id}`));
    });
    assert.equal((await kubectlJson<Rgd>(["get", "rgd", `first-${id}`])).status?.state, "Active");
    await kubectl(["delete", "rgd", `second-${id}`, "--wait=false"]);
  });
});
