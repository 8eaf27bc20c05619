import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { KindHolds } from "./kind-holds.js";

const sorted = (s: Set<string>) => [...s].sort();

describe("KindHolds", () => {
  it("needs the kinds of every served graph; a kind shared by two RGDs stays until both let go", () => {
    const holds = new KindHolds();
    holds.retain("a", { graph: {}, kinds: ["ConfigMap", "Secret"] });
    holds.retain("b", { graph: {}, kinds: ["ConfigMap", "Service"] });
    assert.deepEqual(sorted(holds.needed()), ["ConfigMap", "Secret", "Service"]);
    holds.retain("a", undefined);
    assert.deepEqual(sorted(holds.needed()), ["ConfigMap", "Service"]);
    holds.retain("b", undefined);
    assert.deepEqual(sorted(holds.needed()), []);
  });

  it("a new graph that drops a kind releases it at once when nothing runs", () => {
    const holds = new KindHolds();
    holds.retain("a", { graph: { v: 1 }, kinds: ["ConfigMap", "Secret"] });
    holds.retain("a", { graph: { v: 2 }, kinds: ["ConfigMap"] });
    assert.deepEqual(sorted(holds.needed()), ["ConfigMap"]);
  });

  it("keeps what a running reconcile uses until the last reconcile of that RGD ends", () => {
    const holds = new KindHolds();
    const old = { v: 1 };
    holds.retain("a", { graph: old, kinds: ["ConfigMap", "Secret"] });
    holds.begin("a");
    holds.begin("a");
    holds.retain("a", undefined); // RGD deleted under two running reconciles
    assert.deepEqual(sorted(holds.needed()), ["ConfigMap", "Secret"]);
    holds.use("a", old, ["ConfigMap", "Secret"]); // a running reconcile of the stale graph
    assert.equal(holds.end("a"), false, "one reconcile still runs");
    assert.deepEqual(sorted(holds.needed()), ["ConfigMap", "Secret"]);
    assert.equal(holds.end("a"), true, "the last one ended: sweep");
    assert.deepEqual(sorted(holds.needed()), []);
  });

  it("a reconcile of a stale graph never re-pins the served graph's kinds for good", () => {
    const holds = new KindHolds();
    const old = { v: 1 };
    holds.retain("a", { graph: { v: 2 }, kinds: ["ConfigMap"] });
    holds.begin("a");
    holds.use("a", old, ["Secret"]);
    assert.deepEqual(sorted(holds.needed()), ["ConfigMap", "Secret"]);
    holds.end("a");
    assert.deepEqual(sorted(holds.needed()), ["ConfigMap"]);
  });

  it("reconciles of another RGD do not keep this one's kinds", () => {
    const holds = new KindHolds();
    holds.retain("a", { graph: {}, kinds: ["Secret"] });
    holds.begin("b");
    holds.retain("a", undefined);
    assert.deepEqual(sorted(holds.needed()), []);
    holds.end("b");
  });
});
