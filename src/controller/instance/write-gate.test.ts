// The write gate judges the concrete request: placement and the ownership guard.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANNOTATIONS, LABELS } from "../../api/index.js";
import { CREATE_ONLY_RESOURCE_VERSION } from "./apply-plan.js";
import { judgeApply, judgePatch, placementOf, WriteRefused } from "./write-gate.js";

const rules = placementOf({
  nodes: [
    { id: "local" },
    { id: "remote", clusters: ["eu-west", "us-east"] },
    { id: "x".repeat(80), clusters: ["eu-west"] },
  ] as never,
});
const body = (nodeId: string, metadata: Record<string, unknown> = { uid: "u1" }, cluster?: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: "n",
    ...metadata,
    labels: { [LABELS.nodeId]: nodeId.length > 63 ? `${nodeId.slice(0, 52)}-shortened` : nodeId },
    ...(cluster === undefined ? {} : { annotations: { [ANNOTATIONS.cluster]: cluster } }),
  },
});

describe("write gate", () => {
  it("places a child where its resource allows: the controller's cluster, or a listed target", () => {
    assert.equal(judgeApply(rules, body("local")), undefined);
    assert.equal(judgeApply(rules, body("remote", { uid: "u1" }, "us-east")), "us-east");
    assert.throws(() => judgeApply(rules, body("remote", { uid: "u1" }, "ap-south")), /"ap-south" is not allowed/);
    assert.throws(() => judgeApply(rules, body("remote", { uid: "u1" }, "")), /empty target is an error/);
    assert.throws(() => judgeApply(rules, body("remote")), /evaluated to nothing/);
    assert.throws(() => judgeApply(rules, body("local", { uid: "u1" }, "eu-west")), /has no target cluster/);
    assert.throws(() => judgeApply(rules, body("stranger")), WriteRefused);
  });

  it("finds a long resource id by its shortened label", () => {
    const long = "x".repeat(80);
    const label = placementOf({ nodes: [{ id: long, clusters: ["eu-west"] }] as never })
      .nodes.keys()
      .next().value;
    const write = {
      metadata: { uid: "u", labels: { [LABELS.nodeId]: label }, annotations: { [ANNOTATIONS.cluster]: "eu-west" } },
    };
    assert.equal(judgeApply(rules, write), "eu-west");
  });

  it("refuses an unguarded apply and an unconditioned patch", () => {
    assert.equal(judgeApply(rules, body("local", { resourceVersion: CREATE_ONLY_RESOURCE_VERSION })), undefined);
    assert.throws(() => judgeApply(rules, body("local", {})), /no ownership guard/);
    assert.throws(() => judgeApply(rules, body("local", { resourceVersion: "12" })), /no ownership guard/);
    assert.doesNotThrow(() => {
      judgePatch({ metadata: { resourceVersion: "7", labels: { a: null } } });
    });
    assert.throws(() => {
      judgePatch({ metadata: { labels: { a: null } } });
    }, /must carry the resourceVersion or UID/);
  });
});
