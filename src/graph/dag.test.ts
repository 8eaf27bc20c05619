import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { applyWaves, deletionWaves, findCycle, formatCycle, topologicalOrder, type DagInput } from "./dag.js";

const dag = (ids: string[], deps: Record<string, string[]>): DagInput => ({
  ids,
  dependencies: new Map(Object.entries(deps)),
});

// docs/reference/kro-reference.md §2.7: svc→deploy, ing→svc, cms independent.
const WORKED = dag(["deploy", "svc", "ing", "cms"], { svc: ["deploy"], ing: ["svc"] });

describe("topologicalOrder", () => {
  it("orders the worked example as kro does", () => {
    assert.deepEqual(topologicalOrder(WORKED), { ok: true, order: ["deploy", "svc", "ing", "cms"] });
  });

  it("keeps the author's list order where dependencies allow", () => {
    const input = dag(["c", "b", "a", "d"], { c: ["a"], d: [] });
    assert.deepEqual(topologicalOrder(input), { ok: true, order: ["b", "a", "c", "d"] });
  });

  it("reports a cycle instead of an order", () => {
    const input = dag(["a", "b", "c"], { a: ["b"], b: ["c"], c: ["a"] });
    assert.deepEqual(topologicalOrder(input), { ok: false, cycle: ["a", "b", "c", "a"] });
    assert.equal(formatCycle(["a", "b", "c", "a"]), "a -> b -> c -> a");
  });

  it("finds a two-node cycle and no cycle in a diamond", () => {
    assert.deepEqual(findCycle(dag(["a", "b"], { a: ["b"], b: ["a"] })), ["a", "b", "a"]);
    assert.equal(findCycle(dag(["a", "b", "c", "d"], { b: ["a"], c: ["a"], d: ["b", "c"] })), undefined);
  });

  it("always yields every node after all of its dependencies (property)", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 25 })
          .chain((n) => fc.tuple(fc.constant(n), fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 60 }))),
        ([n, edges]) => {
          const ids = Array.from({ length: n }, (_, i) => `n${i}`);
          // edges only from higher to lower index: acyclic by construction
          const deps = new Map<string, string[]>();
          for (const [a, b] of edges) if (a > b) deps.set(`n${a}`, [...(deps.get(`n${a}`) ?? []), `n${b}`]);
          const result = topologicalOrder({ ids, dependencies: deps });
          assert.ok("order" in result, "acyclic input has an order");
          assert.equal(result.order.length, n);
          const at = new Map(result.order.map((id, i) => [id, i]));
          for (const [id, ds] of deps) for (const d of ds) assert.ok((at.get(d) ?? -1) < (at.get(id) ?? -1));
        },
      ),
    );
  });
});

describe("applyWaves and deletionWaves", () => {
  it("match the worked example: ing and cms wave 3, svc wave 2, deploy wave 1", () => {
    assert.deepEqual(Object.fromEntries(applyWaves(WORKED)), { deploy: 1, svc: 2, ing: 3, cms: 3 });
    assert.deepEqual(deletionWaves(WORKED), [["ing", "cms"], ["svc"], ["deploy"]]);
  });

  it("put every node in one wave when nothing depends on anything", () => {
    assert.deepEqual(deletionWaves(dag(["a", "b"], {})), [["a", "b"]]);
  });

  it("delete a dependent before what it depends on (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(9), fc.nat(9)), { maxLength: 30 }), (edges) => {
        const ids = Array.from({ length: 10 }, (_, i) => `n${i}`);
        const deps = new Map<string, string[]>();
        for (const [a, b] of edges) if (a > b) deps.set(`n${a}`, [...(deps.get(`n${a}`) ?? []), `n${b}`]);
        const waves = applyWaves({ ids, dependencies: deps });
        for (const [id, ds] of deps) for (const d of ds) assert.ok((waves.get(id) ?? 0) > (waves.get(d) ?? 0));
      }),
    );
  });
});
