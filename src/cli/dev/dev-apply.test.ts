import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { applyOrder, instanceOf, servedKindOf, type DevObject } from "./dev-apply.js";

const obj = (apiVersion: string, kind: string, name: string, spec?: unknown): DevObject => ({
  file: "f.yaml",
  object: { apiVersion, kind, metadata: { name }, ...(spec === undefined ? {} : { spec }) },
});

const celRgd = obj("kro.run/v1alpha1", "ResourceGraphDefinition", "webapp", {
  schema: { apiVersion: "v1alpha1", kind: "WebApp" },
});
const templateRgd = obj("kro.run/v1alpha1", "ResourceGraphDefinition", "nginxapp-graph", {
  resourceKind: { group: "kro.example.com", version: "v1", kind: "NginxApp" },
});

describe("dev apply order", () => {
  it("reads the served kind from either dialect", () => {
    assert.deepEqual(servedKindOf(celRgd.object), { rgdName: "webapp", group: "kro.run", kind: "WebApp" });
    assert.deepEqual(servedKindOf(templateRgd.object), {
      rgdName: "nginxapp-graph",
      group: "kro.example.com",
      kind: "NginxApp",
    });
    const grouped = obj("kro.run/v1alpha1", "ResourceGraphDefinition", "g", {
      schema: { kind: "Db", group: "data.example.com" },
    });
    assert.deepEqual(servedKindOf(grouped.object), { rgdName: "g", group: "data.example.com", kind: "Db" });
    assert.equal(
      servedKindOf(obj("kro.run/v1alpha1", "ResourceGraphDefinition", "broken", { schema: {} }).object),
      undefined,
    );
  });

  it("recognises instances by group and kind", () => {
    const kinds = [servedKindOf(celRgd.object), servedKindOf(templateRgd.object)].flatMap((k) => k ?? []);
    assert.equal(instanceOf(obj("kro.run/v1alpha1", "WebApp", "demo").object, kinds)?.rgdName, "webapp");
    assert.equal(
      instanceOf(obj("kro.example.com/v1", "NginxApp", "my-nginx").object, kinds)?.rgdName,
      "nginxapp-graph",
    );
    assert.equal(
      instanceOf(obj("other.example.com/v1", "WebApp", "x").object, kinds),
      undefined,
      "same kind, other group",
    );
    assert.equal(instanceOf(obj("v1", "ConfigMap", "x").object, kinds), undefined);
  });

  it("applies namespaces, CRDs, other objects, RGDs, then instances, keeping file order within each", () => {
    const objects = [
      obj("kro.example.com/v1", "NginxApp", "my-nginx"),
      obj("kro.run/v1alpha1", "WebApp", "demo"),
      celRgd,
      obj("v1", "ConfigMap", "settings"),
      templateRgd,
      obj("apiextensions.k8s.io/v1", "CustomResourceDefinition", "nginxapps.kro.example.com"),
      obj("v1", "Namespace", "team"),
    ];
    assert.deepEqual(
      applyOrder(objects).map((o) => `${o.object.kind ?? ""}/${o.object.metadata?.name ?? ""}`),
      [
        "Namespace/team",
        "CustomResourceDefinition/nginxapps.kro.example.com",
        "ConfigMap/settings",
        "ResourceGraphDefinition/webapp",
        "ResourceGraphDefinition/nginxapp-graph",
        "NginxApp/my-nginx",
        "WebApp/demo",
      ],
    );
  });
});
