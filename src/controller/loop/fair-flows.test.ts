import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FairFlows, USAGE_HALF_LIFE_MS } from "./fair-flows.js";

/** Leaves that count their waiting keys; `take` removes one from the picked leaf. */
function world(depth: number) {
  const flows = new FairFlows(depth, () => ({ waiting: 0 }));
  const leaves = new Map<string, { waiting: number }>();
  const path = (name: string) => name.split("/");
  const add = (name: string, n = 1) => {
    const leaf = flows.leaf(path(name));
    leaves.set(name, leaf);
    leaf.waiting += n;
  };
  const nameOf = (leaf: { waiting: number } | undefined) => [...leaves].find(([, l]) => l === leaf)?.[0];
  const take = (now: number) => {
    const leaf = flows.pick(now, (l) => l.waiting > 0);
    if (leaf !== undefined) leaf.waiting--;
    return nameOf(leaf);
  };
  /** Runs one key of `name` from `from` to `to`. */
  const work = (name: string, from: number, to: number) => {
    flows.start(path(name), from);
    flows.finish(path(name), from, to);
  };
  return { flows, add, take, work, path };
}

describe("FairFlows", () => {
  it("gives the next turn to the flow that used the workers least lately", () => {
    const { add, take, work } = world(1);
    add("hostile", 20);
    add("benign", 3);
    work("hostile", 0, 1900);
    work("benign", 0, 10);
    assert.deepEqual(
      [take(2000), take(2000), take(2000), take(2000)],
      ["benign", "benign", "benign", "hostile"],
      "the cheap flow's waiting keys go first; the expensive one gets the rest (work-conserving)",
    );
  });

  it("spreads keys taken at one instant over flows of equal usage, and ties go to the flow served longest ago", () => {
    const { flows, add, take, path } = world(1);
    add("a", 5);
    add("b", 5);
    add("c", 5);
    const taken: (string | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      const name = take(0);
      taken.push(name);
      // A key handed out is in flight: it counts against its flow at once.
      if (name !== undefined) flows.start(path(name), 0);
    }
    assert.deepEqual(taken, ["a", "b", "c", "a", "b", "c"]);
  });

  it("is fair per namespace first, then per RGD within it", () => {
    const { flows, add, take, path } = world(2);
    add("team-a/webapp", 10);
    add("team-a/db", 10);
    add("team-b/webapp", 10);
    const taken: (string | undefined)[] = [];
    for (let i = 0; i < 8; i++) {
      const name = take(0);
      taken.push(name);
      if (name !== undefined) flows.start(path(name), 0);
    }
    // team-b alone gets as many turns as team-a's two RGDs together.
    assert.equal(taken.filter((n) => n === "team-b/webapp").length, 4);
    assert.equal(taken.filter((n) => n === "team-a/webapp").length, 2);
    assert.equal(taken.filter((n) => n === "team-a/db").length, 2);
  });

  it("counts time in flight as it runs, so a flow holding workers gives way before its keys end", () => {
    const { flows, add, take, path, work } = world(1);
    add("slow", 4);
    add("quick", 4);
    work("quick", 0, 50);
    flows.start(path("slow"), 100);
    assert.equal(take(120), "slow", "20 ms in flight + token < 50 ms used");
    flows.start(path("slow"), 120);
    assert.equal(take(200), "quick", "two keys 100 and 80 ms in flight weigh more than 50 ms done");
  });

  it("forgets usage with its half-life: an expensive flow is not punished for ever", () => {
    const { flows, work, path } = world(1);
    work("x", 0, 1000);
    const [now] = flows.usage(path("x"), 1000);
    const [later] = flows.usage(path("x"), 1000 + USAGE_HALF_LIFE_MS);
    assert.equal(now, 1000);
    assert.ok(later !== undefined && Math.abs(later - 500) < 1e-9, `halved: ${later}`);
  });

  it("has nothing to give when no flow has waiting work, and drops idle flows on the way", () => {
    const { flows, add, take, path } = world(1);
    assert.equal(take(0), undefined);
    add("gone", 1);
    assert.equal(take(0), "gone");
    assert.equal(take(0), undefined);
    // A flow without usage, waiting keys or keys in flight is forgotten: a new leaf is made for it.
    const before = flows.leaf(path("gone"));
    flows.pick(1, () => false);
    assert.notEqual(flows.leaf(path("gone")), before);
    assert.throws(() => flows.leaf(["too", "long"]), /not 1 long/);
  });
});
