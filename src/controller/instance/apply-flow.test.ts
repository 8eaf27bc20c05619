import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApplyStep } from "./apply-plan.js";
import { afterAnswers, afterMove, FLOW_START, nextMove, shouldPlan, type FlowState, type Move } from "./apply-flow.js";

/** A write of the ConfigMap `name`, made for node `name`. */
const step = (name: string, mode: ApplyStep["mode"] = "create"): ApplyStep => {
  const identity = { apiVersion: "v1", kind: "ConfigMap", namespace: "team", name };
  return { mode, nodeId: name, identity, desired: { ...identity }, body: { ...identity } };
};
const names = (move: Move) => (move.kind === "send" ? move.steps.map((s) => s.nodeId) : move.kind);
const bound = { maxSends: 10 };

describe("the apply flow, step by step", () => {
  it("a fan-out: confirm before the first create, send what does not wait, evaluate again only for an answer another node reads", () => {
    // service is read by endpoint; secret and deployment are read by nobody.
    const feeders = new Set(["service"]);
    let state: FlowState = FLOW_START;
    assert.ok(shouldPlan(state, false));
    const first = [step("service"), step("secret"), step("deployment")];

    // Not confirmed, nothing in flight: read the instance first, then plan again from it.
    let move = nextMove(state, first, { confirmed: false, ...bound });
    assert.equal(names(move), "confirm");
    state = afterMove(state, move);
    assert.ok(shouldPlan(state, false), "evaluated again from the confirmed instance");

    move = nextMove(state, first, { confirmed: true, ...bound });
    assert.deepEqual(names(move), ["service", "secret", "deployment"]);
    state = afterMove(state, move);
    assert.equal(state.inFlight.size, 3);
    assert.ok(!shouldPlan(state, false), "nothing new to plan until an evaluation");
    assert.equal(names(nextMove(state, [], { confirmed: true, ...bound })), "wait");

    // The Secret answers: nobody reads it, others are in flight: no evaluation of its own.
    let answers = afterAnswers(state, [step("secret")], false, feeders);
    assert.deepEqual([answers.reevaluate, answers.firstFailure], [false, false]);
    state = answers.state;
    assert.equal(names(nextMove(state, [], { confirmed: true, ...bound })), "wait");

    // The Service answers: endpoint reads it, so the graph is evaluated again and endpoint is sent
    // while the Deployment is still in flight — whose own write is not sent twice.
    answers = afterAnswers(state, [step("service")], false, feeders);
    assert.ok(answers.reevaluate);
    state = answers.state;
    assert.ok(shouldPlan(state, false));
    move = nextMove(state, [step("endpoint"), step("deployment")], { confirmed: true, ...bound });
    assert.deepEqual(names(move), ["endpoint"]);
    state = afterMove(state, move);
    assert.deepEqual([...state.inFlight].length, 2);

    // The last answers: evaluated once more, nothing is left to write.
    answers = afterAnswers(state, [step("deployment"), step("endpoint")], false, feeders);
    assert.ok(answers.reevaluate, "the last answer is always evaluated");
    state = answers.state;
    move = nextMove(state, [], { confirmed: true, ...bound });
    assert.equal(names(move), "done");
    assert.equal(afterMove(state, move).sends, 2);
  });

  it("a create waits for the writes in flight before the instance is confirmed; updates do not", () => {
    let state = afterMove(FLOW_START, { kind: "send", steps: [step("a", "update")] });
    state = { ...state, fresh: true };
    assert.equal(names(nextMove(state, [step("b", "create")], { confirmed: false, ...bound })), "wait");
    assert.deepEqual(names(nextMove(state, [step("b", "update")], { confirmed: false, ...bound })), ["b"]);
    const drained = afterAnswers(state, [step("a")], false, new Set()).state;
    assert.equal(names(nextMove(drained, [step("b", "create")], { confirmed: false, ...bound })), "confirm");
  });

  it("a failed write stops new sends, while what is in flight is still waited for", () => {
    const feeders = new Set(["a"]);
    let state = afterMove(FLOW_START, { kind: "send", steps: [step("a"), step("slow")] });
    const failed = afterAnswers(state, [step("a")], true, feeders);
    assert.deepEqual([failed.reevaluate, failed.firstFailure], [false, true], "told once; b is never planned from it");
    state = failed.state;
    assert.ok(!shouldPlan(state, false));
    assert.equal(names(nextMove(state, [], { confirmed: true, ...bound })), "wait");
    const last = afterAnswers(state, [step("slow")], false, feeders);
    assert.deepEqual([last.reevaluate, last.firstFailure], [false, false]);
    assert.equal(names(nextMove(last.state, [], { confirmed: true, ...bound })), "done");
  });

  it("an evaluation with an error plans nothing", () => {
    assert.ok(!shouldPlan(FLOW_START, true));
  });

  it("sends are bounded: a graph whose evaluation never settles ends", () => {
    let state: FlowState = FLOW_START;
    for (let i = 0; i < 3; i++) {
      const move = nextMove(state, [step(`gen-${i}`, "update")], { confirmed: true, maxSends: 3 });
      assert.equal(move.kind, "send");
      state = afterAnswers(afterMove(state, move), [step(`gen-${i}`)], false, new Set()).state;
    }
    assert.equal(names(nextMove(state, [step("gen-3", "update")], { confirmed: true, maxSends: 3 })), "done");
  });
});
