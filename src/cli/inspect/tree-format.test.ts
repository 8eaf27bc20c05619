import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { InstanceTree } from "../../inspect/index.js";
import { formatTree } from "./tree-format.js";

const tree = (extra: Partial<InstanceTree>): InstanceTree => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "WebApp",
  name: "shop",
  namespace: "default",
  rgd: "webapp",
  ready: true,
  state: "ACTIVE",
  reason: "Ready",
  message: "",
  nodes: [
    {
      id: "cm",
      apiVersion: "v1",
      kind: "ConfigMap",
      type: "resource",
      state: "Ready",
      reason: "applied",
      objects: [{ apiVersion: "v1", kind: "ConfigMap", name: "shop", namespace: "default", cluster: "eu-west" }],
    },
  ],
  ...extra,
});
const rootLine = (text: string): string => text.split("\n")[1] ?? "";

describe("formatTree", () => {
  it("says which graph revision a rollout gave the instance, and when it has not run it yet", () => {
    assert.match(rootLine(formatTree(tree({ revision: { assigned: 2, running: 2 } }), 0)), /Ready; revision 2$/);
    assert.match(rootLine(formatTree(tree({ revision: { assigned: 3, running: 2 } }), 0)), /assigned 3, running 2$/);
    assert.match(rootLine(formatTree(tree({}), 0)), /Ready$/, "no rollout: nothing said");
    assert.match(
      rootLine(formatTree(tree({ revision: { assigned: 3, running: 3, pinProblem: "revision 1 is gone" } }), 0)),
      /revision 3; pin not honoured: revision 1 is gone$/,
    );
  });
  it("names the cluster of a child placed in another cluster", () => {
    assert.match(formatTree(tree({}), 0), /cm: ConfigMap\/shop \(cluster eu-west\)/);
  });
});
