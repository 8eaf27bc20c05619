import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { evaluateInstance } from "./evaluate.js";
import { createMemoryLookup } from "./memory-lookup.js";
import { compileFixture, instanceOf } from "./fixtures.test.helpers.js";

describe("CEL cost limits at runtime", () => {
  const graph = compileFixture("includewhen-chain");
  const instance = instanceOf(graph, { name: "x", cache: true });

  it("a pass within its budget renders as usual", () => {
    const evaluation = evaluateInstance(graph, instance, createMemoryLookup());
    assert.equal(evaluation.error, undefined);
    assert.ok(evaluation.apply.length > 0);
  });

  it("a pass that exhausts its shared budget stops with a clear error and applies nothing", () => {
    const evaluation = evaluateInstance(graph, instance, createMemoryLookup(), { passCostLimit: 3 });
    assert.match(evaluation.error ?? "", /budget of 3 exhausted/);
    assert.deepEqual(evaluation.apply, []);
  });
});
