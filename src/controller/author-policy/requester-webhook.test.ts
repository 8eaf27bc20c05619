// A deleted requester webhook is put back only by the controller that serves its RGD.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rgdToRestore } from "./requester-webhook.js";

const webhook = (rgdName: string, uid: string) => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingWebhookConfiguration",
  metadata: {
    name: `kro-requester.${rgdName}`,
    ownerReferences: [{ apiVersion: "kro.run/v1alpha1", kind: "ResourceGraphDefinition", name: rgdName, uid }],
  },
});

describe("rgdToRestore", () => {
  const served = (name: string) => (name === "mine" ? { rgdUid: "u-mine" } : undefined);

  it("queues the RGD this controller serves", () => {
    assert.equal(rgdToRestore(webhook("mine", "u-mine"), served), "mine");
  });

  it("never takes up an RGD another controller serves (another selector), nor a webhook of an older RGD of the name", () => {
    assert.equal(rgdToRestore(webhook("theirs", "u-theirs"), served), undefined);
    assert.equal(rgdToRestore(webhook("mine", "u-old"), served), undefined);
    assert.equal(rgdToRestore({ metadata: { name: "x" } }, served), undefined);
  });
});
