import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { currentConditions, rootReady, stamp } from "./conditions.js";

describe("stamp", () => {
  const previous = currentConditions({
    status: {
      conditions: [
        { type: "A", status: "True", reason: "R", message: "", lastTransitionTime: "t0", observedGeneration: 1 },
      ],
    },
  });
  it("keeps the transition time when the status did not change", () => {
    const a = stamp({ type: "A", status: "True", reason: "Other", message: "m" }, previous, 2, "t1");
    assert.deepEqual(a, {
      type: "A",
      status: "True",
      reason: "Other",
      message: "m",
      lastTransitionTime: "t0",
      observedGeneration: 2,
    });
  });
  it("moves the transition time when the status changed or the condition is new", () => {
    const stamped = [
      { type: "A", status: "False", reason: "R", message: "" },
      { type: "B", status: "True", reason: "R", message: "" },
    ].map((c) => stamp(c, previous, 2, "t1"));
    assert.deepEqual(
      stamped.map((c) => c.lastTransitionTime),
      ["t1", "t1"],
    );
  });
});

describe("rootReady", () => {
  it("is True when every dependent is True", () => {
    assert.equal(
      rootReady([{ type: "A", status: "True", reason: "x", message: "", lastTransitionTime: "t0" }]).status,
      "True",
    );
  });
  it("copies a False dependent before an Unknown one", () => {
    const ready = rootReady([
      { type: "A", status: "Unknown", reason: "u", message: "", lastTransitionTime: "t0" },
      { type: "B", status: "False", reason: "f", message: "bad", lastTransitionTime: "t0" },
    ]);
    assert.deepEqual(ready, { type: "Ready", status: "False", reason: "f", message: "bad" });
  });
});
