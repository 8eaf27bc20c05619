// installCrd against a fake client: a CRD the API server calls Established is used only once its
// kind is in discovery at every version it serves — the instances' watch starts right after, and
// a kind not served yet makes that watch fail and retry with a warning.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError, DiscoveryError, type KubeClient, type KubeObject } from "../../kube/index.js";
import type { CustomResourceDefinition } from "../../schema/index.js";
import { installCrd } from "./crd-installer.js";

const generated = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "webapps.kro.run" },
  spec: {
    group: "kro.run",
    names: { kind: "WebApp", plural: "webapps", singular: "webapp", listKind: "WebAppList" },
    scope: "Namespaced",
    versions: [
      { name: "v1alpha1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object" } } },
      { name: "v1beta1", served: true, storage: false, schema: { openAPIV3Schema: { type: "object" } } },
    ],
  },
} as unknown as CustomResourceDefinition;

/** The API server as installCrd sees it: the CRD Established at once, each version in discovery after `lag` misses. */
function fakeClient(lag: Record<string, number>) {
  let stored: KubeObject | undefined;
  const asked: string[] = [];
  const client = {
    get: () => {
      if (stored === undefined) throw new ApiError({ status: 404, verb: "GET", path: "/crd" });
      return Promise.resolve({ ...stored, status: { conditions: [{ type: "Established", status: "True" }] } });
    },
    create: (object: KubeObject) => {
      stored = object;
      return Promise.resolve(object);
    },
    replace: (object: KubeObject) => Promise.resolve(object),
    resourceFor: (apiVersion: string, kind: string) => {
      asked.push(apiVersion);
      const left = lag[apiVersion] ?? 0;
      if (left > 0) {
        lag[apiVersion] = left - 1;
        return Promise.reject(new DiscoveryError(apiVersion, kind));
      }
      return Promise.resolve({ name: "webapps", namespaced: true });
    },
  };
  return { client: client as unknown as KubeClient, asked };
}

describe("installCrd", () => {
  it("returns only once the kind is served at every version, not when the CRD is Established", async () => {
    const { client, asked } = fakeClient({ "kro.run/v1alpha1": 1, "kro.run/v1beta1": 2 });
    const result = await installCrd(client, generated, {
      rgdName: "webapp",
      rgdUid: "u1",
      kroVersion: "0.1.0",
      allowBreakingChanges: false,
    });
    assert.deepEqual(result, { ok: true, changed: true });
    assert.equal(asked.filter((v) => v === "kro.run/v1beta1").length, 3, "asked until v1beta1 was served too");
  });
});
