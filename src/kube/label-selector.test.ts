// Label selectors as kubectl writes them, in the object form admission configurations take.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseLabelSelector } from "./label-selector.js";

describe("parseLabelSelector", () => {
  it("reads equality, inequality, set and existence terms", () => {
    assert.deepEqual(parseLabelSelector("app=web, tier==db,env!=prod,zone in (a, b),size notin (xl),team,!legacy"), {
      matchLabels: { app: "web", tier: "db" },
      matchExpressions: [
        { key: "env", operator: "NotIn", values: ["prod"] },
        { key: "zone", operator: "In", values: ["a", "b"] },
        { key: "size", operator: "NotIn", values: ["xl"] },
        { key: "team", operator: "Exists" },
        { key: "legacy", operator: "DoesNotExist" },
      ],
    });
  });

  it("reads prefixed keys and an empty selector", () => {
    assert.deepEqual(parseLabelSelector("kro-ts.test/controller=ab12"), {
      matchLabels: { "kro-ts.test/controller": "ab12" },
    });
    assert.deepEqual(parseLabelSelector("!kro-ts.test/controller"), {
      matchExpressions: [{ key: "kro-ts.test/controller", operator: "DoesNotExist" }],
    });
    assert.deepEqual(parseLabelSelector(""), {});
  });

  it("names a term it cannot read", () => {
    assert.throws(() => parseLabelSelector("app=web,a b"), /cannot read the label selector term "a b"/);
  });
});
