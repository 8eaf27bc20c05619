import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { selectorString } from "./live-instance.js";

describe("selectorString", () => {
  it("writes matchLabels and every matchExpressions operator in kubectl's selector syntax", () => {
    assert.equal(selectorString({ apiVersion: "v1", kind: "ConfigMap", matchLabels: {} }), "");
    assert.equal(
      selectorString({
        apiVersion: "v1",
        kind: "ConfigMap",
        matchLabels: { app: "web", tier: "front" },
        matchExpressions: [
          { key: "env", operator: "In", values: ["a", "b"] },
          { key: "zone", operator: "NotIn", values: ["x"] },
          { key: "owned", operator: "Exists" },
          { key: "legacy", operator: "DoesNotExist" },
        ],
      }),
      "app=web,tier=front,env in (a,b),zone notin (x),owned,!legacy",
    );
  });
});
