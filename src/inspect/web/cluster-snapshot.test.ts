// What the web view's reads cost, on the in-memory API server behind the real KubeClient: the
// overview lists each served kind once and reads no instance or child on its own, however many
// instances there are; only an instance's page gets that instance.
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { rgdCustomResourceDefinition } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { clientFor, FakeCluster } from "../../../test/unit-support/fake-api/index.js";
import { createSnapshotReader } from "./cluster-snapshot.js";

const rootCrd: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "roots.kro.run" },
  spec: {
    group: "kro.run",
    scope: "Namespaced",
    names: { kind: "Root", plural: "roots", singular: "root", listKind: "RootList" },
    versions: [
      {
        name: "v1alpha1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
};

async function fixture(t: TestContext, instances: number) {
  const cluster = new FakeCluster();
  const client = clientFor(cluster);
  t.after(() => {
    client.close();
  });
  await client.create(rgdCustomResourceDefinition() as unknown as KubeObject);
  await client.create(rootCrd);
  await client.create({
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "root" },
    spec: { schema: { apiVersion: "v1alpha1", kind: "Root" }, resources: [] },
  });
  for (let i = 0; i < instances; i++)
    await client.create({
      apiVersion: "kro.run/v1alpha1",
      kind: "Root",
      metadata: { name: `r-${String(i)}`, namespace: i % 2 === 0 ? "team-a" : "team-b" },
      spec: {},
    });
  const reader = createSnapshotReader(client, {
    graphs: () => () => Promise.reject(new Error("no graph in this test")),
  });
  return { cluster, reader };
}

describe("web view reads", () => {
  it("lists each served kind once for the overview, and reads no instance on its own", async (t) => {
    const { cluster, reader } = await fixture(t, 120);
    const before = cluster.requests.length;
    const snapshot = await reader.overview();
    const made = cluster.requests.slice(before);
    assert.ok(snapshot.rgds.ok);
    const listing = snapshot.rgds.value[0];
    assert.ok(listing?.instances.ok);
    assert.equal(listing.instances.value.length, 120);
    assert.deepEqual(
      made.map((r) => `${r.verb} ${r.kind}`),
      ["list ResourceGraphDefinition", "list Root"],
      "one list of RGDs, one of the kind: no get, no child",
    );
    const scoped = cluster.requests.length;
    await reader.overview("team-a");
    assert.deepEqual(
      cluster.requests.slice(scoped).map((r) => `${r.verb} ${r.kind} ${r.namespace ?? "*"}`),
      ["list ResourceGraphDefinition *", "list Root team-a"],
      "a namespace asked for is the list's scope",
    );
  });

  it("reads the instance for its page, and says why its tree is missing when its RGD has no graph here", async (t) => {
    const { reader } = await fixture(t, 1);
    const page = await reader.instancePage("root", "team-a", "r-0");
    assert.ok(page.object.ok, "the instance itself was read");
    assert.deepEqual(page.tree, { ok: false, notPermitted: false, message: "no graph in this test" });
    const missing = await reader.instancePage("other", "team-a", "r-0");
    assert.equal(missing.object.ok ? "" : missing.object.message, "no ResourceGraphDefinition other is listed for you");
  });
});
