import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isJsonSubset, jsonEqual } from "./json-equal.js";

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
