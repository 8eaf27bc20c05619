import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { evaluateInstance } from "./evaluate.js";
import { createMemoryLookup } from "./memory-lookup.js";
import { compileFixture, instanceOf } from "../../test/unit-support/runtime/fixtures.js";

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

describe("the wall-clock deadline of a pass", () => {
  const graph = compileFixture("includewhen-chain");
  const instance = instanceOf(graph, { name: "x", cache: true });

  it("a pass within its deadline renders as usual", () => {
    const evaluation = evaluateInstance(graph, instance, createMemoryLookup(), {
      passDeadline: { now: () => 0, budgetMs: 100 },
    });
    assert.equal(evaluation.error, undefined);
    assert.ok(evaluation.apply.length > 0);
  });

  it("a pass past its deadline stops between nodes with an error naming the next resource, and applies nothing", () => {
    let clock = 0;
    // Each reading advances the clock by 60 ms: the deadline (100 ms) passes after the first node.
    const evaluation = evaluateInstance(graph, instance, createMemoryLookup(), {
      passDeadline: { now: () => (clock += 60), budgetMs: 100 },
    });
    assert.match(evaluation.error ?? "", /time limit of 100 ms before resource "/);
    assert.deepEqual(evaluation.apply, []);
  });
});
