// .Capabilities from the API server: /version asked once, APIVersions as Helm's GetVersionSet,
// one object per distinct content (a chart render is reused by its identity).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeClient } from "../../kube/index.js";
import { HelmClusterCache } from "./helm-capabilities.js";

function fakeClient(resources: { group: string; version: string; kind: string }[][]) {
  let snapshot = 0;
  let versionCalls = 0;
  const discovery = {
    refreshes: 1,
    all: () => Promise.resolve(resources[Math.min(snapshot, resources.length - 1)] ?? []),
  };
  const client = {
    discovery,
    getPath: () => {
      versionCalls++;
      return Promise.resolve({ gitVersion: "v1.34.1" });
    },
  } as unknown as KubeClient;
  return {
    client,
    refresh: () => {
      snapshot++;
      discovery.refreshes++;
    },
    versionCalls: () => versionCalls,
  };
}

describe("HelmClusterCache", () => {
  it("lists every group/version and group/version/Kind, sorted, with the server's version", async () => {
    const { client } = fakeClient([
      [
        { group: "", version: "v1", kind: "Secret" },
        { group: "apps", version: "v1", kind: "Deployment" },
      ],
    ]);
    assert.deepEqual(await new HelmClusterCache(client).capabilities(), {
      kubeVersion: "v1.34.1",
      apiVersions: ["apps/v1", "apps/v1/Deployment", "v1", "v1/Secret"],
    });
  });

  it("keeps one object while the content is the same, a new one when a kind appears; asks /version once", async () => {
    const base = [{ group: "", version: "v1", kind: "Secret" }];
    const fake = fakeClient([base, base, [...base, { group: "x.example.com", version: "v1", kind: "Widget" }]]);
    const cache = new HelmClusterCache(fake.client);
    const first = await cache.capabilities();
    fake.refresh();
    assert.equal(await cache.capabilities(), first);
    fake.refresh();
    const third = await cache.capabilities();
    assert.notEqual(third, first);
    assert.ok(third.apiVersions.includes("x.example.com/v1/Widget"));
    assert.equal(fake.versionCalls(), 1);
  });
});
