// The evaluation pool with real worker threads: a pass there equals the same pass on the main
// thread (its lookups, shard labels and served kinds answered from here), waiting passes take
// turns by namespace, and a pass past its deadline is an error for that instance alone.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createMemoryLookup, evaluateInstance, type KubeJson, type RuntimeOptions } from "../../runtime/index.js";
import { compileFixture, compileValue, instanceOf } from "../../../test/unit-support/runtime/fixtures.js";
import { EvaluationPool, type PoolEvaluation } from "./evaluation-pool.js";

const webapp = compileFixture("webapp");
/** A quadratic comprehension over `spec.size` (bench/fixtures/heavy-rgd.mjs): work under the cost limit. */
const heavy = compileValue({
  apiVersion: "kro.run/v1alpha1",
  kind: "ResourceGraphDefinition",
  metadata: { name: "heavy" },
  spec: {
    schema: { apiVersion: "v1alpha1", kind: "Heavy", spec: { size: "integer | default=300" } },
    resources: [
      {
        id: "config",
        template: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "${schema.metadata.name}-heavy" },
          data: {
            matches:
              "${string(size(lists.range(schema.spec.size).map(i, lists.range(schema.spec.size).filter(j, (i * j) % 7 == 3))))}",
          },
        },
      },
    ],
  },
});

function ok(answer: PoolEvaluation): Extract<PoolEvaluation, { ok: true }> {
  assert.ok(answer.ok, answer.ok ? "" : answer.error);
  return answer;
}

describe("evaluation pool", () => {
  const pool = new EvaluationPool({ threads: 1, heapMb: 64 });
  after(() => pool.stop());

  it("a pass in a worker is the pass on the main thread, with its reads answered from here", async () => {
    const instance = instanceOf(webapp, {
      name: "shop",
      replicas: 2,
      regions: ["eu", "us"],
      ingress: { enabled: true },
    });
    const lookup = createMemoryLookup();
    const reads: string[] = [];
    const counted = {
      get: (identity: Parameters<typeof lookup.get>[0]) => {
        reads.push(`${identity.kind}/${identity.name}`);
        return lookup.get(identity);
      },
      list: (query: Parameters<typeof lookup.list>[0]) => lookup.list(query),
    };
    const options: RuntimeOptions = {
      kroVersion: "9.9.9",
      childLabels: (_apiVersion, kind) => (kind === "Service" ? { "kro.run/shard": "s-3" } : undefined),
      awaitsReady: () => false,
    };
    // Converge a few rounds on the main thread, so the pass reads live objects with status.
    for (let i = 0; i < 3; i++) {
      const inline = evaluateInstance(webapp, instance, lookup, options);
      lookup.put(...inline.apply.map((o) => ({ ...o, status: { availableReplicas: 2 } })));
    }
    const inline = evaluateInstance(webapp, instance, lookup, options);
    reads.length = 0;
    const pooled = ok(await pool.evaluate({ flow: "team", graph: webapp, instance, lookup: counted, options }));
    assert.deepEqual(pooled.evaluation, inline);
    assert.ok(pooled.evaluation.apply.length >= 2);
    assert.ok(reads.includes(`Deployment/shop`), `the worker read through this thread's lookup: ${reads.join(", ")}`);
    const service = pooled.evaluation.apply.find((o) => o.kind === "Service") as { metadata: { labels: KubeJson } };
    assert.equal(service.metadata.labels["kro.run/shard"], "s-3");
  });

  it("waiting passes take turns by namespace: one busy namespace does not hold another behind all of its passes", async () => {
    const done: string[] = [];
    const submit = (flow: string, n: number): Promise<void> =>
      pool
        .evaluate({
          flow,
          graph: heavy,
          instance: instanceOf(heavy, { size: 40 }, { name: `${flow}${n}` }),
          lookup: createMemoryLookup(),
          options: {},
        })
        .then((answer) => {
          ok(answer);
          done.push(`${flow}${n}`);
        });
    const all = [submit("a", 1), submit("a", 2), submit("a", 3), submit("a", 4), submit("b", 1)];
    assert.equal(pool.waiting, 4, "one thread: the first pass runs, four wait");
    await Promise.all(all);
    assert.deepEqual(done, ["a1", "a2", "b1", "a3", "a4"]);
  });

  it("a pass past its deadline (the worker's own work) is an error for that instance; the next pass runs", async () => {
    const late = ok(
      await pool.evaluate({
        flow: "a",
        graph: heavy,
        instance: instanceOf(heavy, { size: 1500 }),
        lookup: createMemoryLookup(),
        options: {},
        deadlineMs: 5,
      }),
    );
    assert.match(late.evaluation.error ?? "", /time limit of 5 ms/);
    assert.deepEqual(late.evaluation.apply, []);
    const next = ok(
      await pool.evaluate({
        flow: "a",
        graph: heavy,
        instance: instanceOf(heavy, { size: 10 }),
        lookup: createMemoryLookup(),
        options: {},
        deadlineMs: 60_000,
      }),
    );
    assert.equal(next.evaluation.error, undefined);
    assert.equal(next.evaluation.apply.length, 1);
  });

  it("after stop, a pass is answered at once that the controller is stopping", async () => {
    const stopped = new EvaluationPool({ threads: 1 });
    await stopped.stop();
    const answer = await stopped.evaluate({
      flow: "a",
      graph: webapp,
      instance: instanceOf(webapp, { name: "x" }),
      lookup: createMemoryLookup(),
      options: {},
    });
    assert.equal(answer.ok, false);
  });
});
