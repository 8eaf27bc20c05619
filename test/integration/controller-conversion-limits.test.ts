/**
 * A conversion that would store more than the API server lets an object keep: an instance written
 * at v1beta1 whose round-trip field (kept in an annotation of the stored hub object) takes the
 * annotations past 256 KiB is refused at the write, naming the annotation — stored, every later
 * write of it (status, the finalizer's removal) would have been refused. One that fits converges,
 * keeps the field at v1beta1, and is deleted.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { eventually } from "../support/eventually.js";
import { kubectl, kubectlJson, KubectlError } from "../support/test-cluster.js";
import { letterSuffix, startTestController, type TestController } from "../support/controller.js";

const suffix = letterSuffix();
const kind = `Stash${suffix.charAt(0).toUpperCase()}${suffix.slice(1)}App`;
const plural = `${kind.toLowerCase()}s`;
const crdName = `${plural}.kro.run`;
const rgdName = `stash-${suffix}`;
const namespace = `stash-${suffix}`;
const label = { key: "kro-ts.test/controller", value: `stash-${suffix}` };
let tc: TestController;

const rgd = () => `
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: ${rgdName}
  labels: { ${label.key}: "${label.value}" }
spec:
  schema:
    apiVersion: v1alpha1
    kind: ${kind}
    spec:
      image: string | default="nginx"
    versions:
      - name: v1beta1
        spec:
          image: string | default="nginx"
          notes: string
        conversion:
          roundTrip:
            version: ["spec.notes"]
  resources:
    - id: config
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: "\${schema.metadata.name}-config" }
        data:
          image: \${schema.spec.image}
`;

const instance = (name: string, notes: string) =>
  `apiVersion: kro.run/v1beta1\nkind: ${kind}\nmetadata: { name: ${name}, namespace: ${namespace} }\nspec: { image: nginx, notes: "${notes}" }\n`;

interface Obj {
  spec: { notes?: string };
  status?: { state?: string };
}

describe("a conversion the API server could not store", { timeout: 200_000 }, () => {
  before(async () => {
    tc = await startTestController({ label });
    await kubectl(["create", "namespace", namespace]);
    await kubectl(["apply", "-f", "-"], rgd());
    await eventually(
      async () => {
        const live = await kubectlJson<{ status?: { state?: string } }>(["get", "rgd", rgdName]);
        assert.equal(live.status?.state, "Active", JSON.stringify(live.status));
      },
      { timeout: 90_000 },
    );
  });
  after(async () => {
    await kubectl(["delete", "namespace", namespace, "--wait=true", "--timeout=60s", "--ignore-not-found"]).catch(
      () => undefined,
    );
    await tc.stop();
    await kubectl(["delete", "rgd", rgdName, "--wait=false", "--ignore-not-found"]);
    await kubectl(["delete", "crd", crdName, "--wait=false", "--ignore-not-found"]);
  });

  it("is refused at the write, naming the annotation; one that fits converges, keeps its field, and is deleted", async () => {
    const refused = await kubectl(["create", "-f", "-"], instance("big", "x".repeat(300 * 1024))).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof KubectlError, "the write is refused");
    assert.match(
      refused.message,
      /round-trip fields kept in annotation conversion\.kro\.run\/v1beta1 take the object's annotations to \d+ bytes; the API server allows 262144/,
    );
    await assert.rejects(kubectl(["get", plural, "big", "-n", namespace]), /NotFound|not found/);

    await kubectl(["create", "-f", "-"], instance("fits", "y".repeat(100 * 1024)));
    await eventually(
      async () => {
        const live = await kubectlJson<Obj>(["get", `${plural}.v1alpha1.kro.run`, "fits", "-n", namespace]);
        assert.equal(live.status?.state, "ACTIVE");
      },
      { timeout: 60_000 },
    );
    const beta = await kubectlJson<Obj>(["get", `${plural}.v1beta1.kro.run`, "fits", "-n", namespace]);
    assert.equal(beta.spec.notes?.length, 100 * 1024, "the field comes back at v1beta1");
    await kubectl(["delete", plural, "fits", "-n", namespace, "--timeout=60s"]);
  });
});
