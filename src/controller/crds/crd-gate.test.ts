import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../kube/index.js";
import type { CustomResourceDefinition, JSONSchemaProps } from "../../schema/index.js";
import { crdUpdateBody, judgeCrdUpdate, type CrdOwner } from "./crd-gate.js";

const owner: CrdOwner = { rgdName: "webapp", rgdUid: "u1", kroVersion: "1.0", allowBreakingChanges: false };

function crd(spec: JSONSchemaProps): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "webapps.kro.run" },
    spec: {
      group: "kro.run",
      scope: "Namespaced",
      names: { kind: "WebApp", plural: "webapps", singular: "webapp", listKind: "WebAppList" },
      versions: [
        {
          name: "v1alpha1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
        },
      ],
    },
  };
}

const before = crd({ type: "object", properties: { port: { type: "integer" } } });
/** As the cluster holds it once installed: our labels on it, plus fields the server adds. */
const live = (
  c: CustomResourceDefinition,
  labels: Record<string, string> = { "kro.run/resource-graph-definition-name": "webapp" },
): KubeObject => ({
  ...c,
  metadata: {
    ...c.metadata,
    labels: {
      "kro.run/owned": "true",
      "kro.run/kro-version": "1.0",
      "kro.run/resource-graph-definition-id": "u1",
      ...labels,
    },
    resourceVersion: "7",
  },
  status: { storedVersions: ["v1alpha1"] },
});

describe("the CRD breaking-change gate (pure)", () => {
  it("creates a missing CRD with our labels, and leaves an identical one alone", () => {
    const created = judgeCrdUpdate(undefined, before, owner);
    if (created.kind !== "create") assert.fail(created.kind);
    assert.equal(created.desired.metadata.labels?.["kro.run/resource-graph-definition-name"], "webapp");
    assert.deepEqual(judgeCrdUpdate(live(before), before, owner), { kind: "up-to-date" });
  });

  it("updates on a non-breaking change; refuses a breaking one unless the RGD allows it", () => {
    const added = crd({ type: "object", properties: { port: { type: "integer" }, host: { type: "string" } } });
    const update = judgeCrdUpdate(live(before), added, owner);
    if (update.kind !== "update") assert.fail(update.kind);
    assert.equal(update.breaking.length, 0);
    const required = crd({
      type: "object",
      required: ["host"],
      properties: { port: { type: "integer" }, host: { type: "string" } },
    });
    const refused = judgeCrdUpdate(live(before), required, owner);
    if (refused.kind !== "refuse") assert.fail(refused.kind);
    assert.equal(refused.reason, "BreakingChanges");
    assert.match(refused.message, /breaking changes: .*host.*kro\.run\/allow-breaking-changes/);
    assert.equal(judgeCrdUpdate(live(before), required, { ...owner, allowBreakingChanges: true }).kind, "update");
  });

  it("never touches a CRD another RGD (or nobody) owns", () => {
    const other = judgeCrdUpdate(
      live(before, { "kro.run/resource-graph-definition-name": "someone-else" }),
      before,
      owner,
    );
    assert.equal(other.kind === "refuse" && other.reason, "OwnershipConflict");
    const unlabelled = judgeCrdUpdate({ ...before, metadata: { name: "webapps.kro.run" } }, before, owner);
    assert.match(unlabelled.kind === "refuse" ? unlabelled.message : "", /was not created by kro/);
  });

  it("the update body keeps the live object's metadata (resourceVersion) and takes the new spec", () => {
    const added = crd({ type: "object", properties: { host: { type: "string" } } });
    const body = crdUpdateBody(live(before), added);
    assert.equal(body.metadata?.resourceVersion, "7");
    assert.deepEqual(body.spec, added.spec);
  });
});
