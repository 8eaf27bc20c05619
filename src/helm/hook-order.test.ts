import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareHooks, hookChain, hookWeight, type HookKey } from "./hook-order.js";

const key = (id: string, weight: number, kind: string, name: string, condition?: string): HookKey => ({
  id,
  weight,
  kind,
  name,
  condition,
});

describe("Helm's hook order as a dependsOn chain", () => {
  it("weights parse like strconv.Atoi (anything else is 0)", () => {
    assert.deepEqual(["5", "-3", "+2", " 1", "1.5", "x", undefined, ""].map(hookWeight), [5, -3, 2, 0, 0, 0, 0, 0]);
  });
  it("sorts by weight, then install order of kind (unknown kinds last, by kind), then name", () => {
    const keys = [
      key("job", 0, "Job", "a"),
      key("cm", 0, "ConfigMap", "z"),
      key("late", 5, "ConfigMap", "a"),
      key("early", -5, "Job", "z"),
      key("crB", 0, "Widget", "a"),
      key("crA", 0, "Gadget", "b"),
      key("job2", 0, "Job", "0"),
    ];
    assert.deepEqual(
      [...keys].sort(compareHooks).map((k) => k.id),
      ["early", "cm", "job2", "job", "crA", "crB", "late"],
    );
  });
  it("chains each child to the previous one, skipping children that may be excluded", () => {
    const chain = hookChain([
      key("b", 1, "Job", "b"),
      key("a", 0, "Job", "a"),
      key("sub", 0, "Job", "m", "{{ cond }}"),
      key("c", 2, "Job", "c"),
    ]);
    assert.deepEqual(Object.fromEntries(chain), { a: [], sub: ["a"], b: ["a"], c: ["b"] });
  });
});
