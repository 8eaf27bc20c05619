import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { rootReady, stampConditions } from "./conditions.js";
import { isJsonSubset, jsonEqual } from "./json-equal.js";

describe("stampConditions", () => {
  const previous = [{ type: "A", status: "True", reason: "R", message: "", lastTransitionTime: "t0", observedGeneration: 1 }];
  it("keeps the transition time when the status did not change", () => {
    const [a] = stampConditions(previous, [{ type: "A", status: "True", reason: "Other", message: "m" }], "t1", 2);
    assert.deepEqual(a, { type: "A", status: "True", reason: "Other", message: "m", lastTransitionTime: "t0", observedGeneration: 2 });
  });
  it("moves the transition time when the status changed or the condition is new", () => {
    const stamped = stampConditions(previous, [{ type: "A", status: "False", reason: "R", message: "" }, { type: "B", status: "True", reason: "R", message: "" }], "t1", 2);
    assert.deepEqual(stamped.map((c) => c.lastTransitionTime), ["t1", "t1"]);
  });
});

describe("rootReady", () => {
  it("is True when every dependent is True", () => {
    assert.equal(rootReady([{ type: "A", status: "True", reason: "x", message: "" }]).status, "True");
  });
  it("copies a False dependent before an Unknown one", () => {
    const ready = rootReady([{ type: "A", status: "Unknown", reason: "u", message: "" }, { type: "B", status: "False", reason: "f", message: "bad" }]);
    assert.deepEqual(ready, { type: "Ready", status: "False", reason: "f", message: "bad" });
  });
});

describe("json comparison", () => {
  it("ignores key order and 3 vs 3.0", () => {
    assert.ok(jsonEqual({ a: 1, b: [1, { c: 3.0 }] }, { b: [1, { c: 3 }], a: 1 }));
    assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: 2 }));
  });
  it("treats fields only the live object has as equal, and any difference in ours as drift", () => {
    const live = { metadata: { name: "x", uid: "u", labels: { a: "1", b: "2" } }, data: { k: "v" } };
    assert.ok(isJsonSubset({ metadata: { name: "x", labels: { a: "1" } }, data: { k: "v" } }, live));
    assert.ok(!isJsonSubset({ data: { k: "changed" } }, live));
    assert.ok(!isJsonSubset({ data: { k: "v", missing: "m" } }, live));
    assert.ok(!isJsonSubset({ list: [1, 2] }, { list: [1, 2, 3] }));
  });
});
