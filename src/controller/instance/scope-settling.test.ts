// The evaluate → watch → evaluate loop: stops when no new scope starts, and past its bound marks
// the chart's children so nothing built on unsettled lookups is applied.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRgd } from "../../graph/index.js";
import type { InstanceEvaluation } from "../../runtime/index.js";
import type { ControllerContext } from "../context/controller-context.js";
import { MAX_SCOPE_PASSES, settleScopes } from "./scope-settling.js";

const graph = (() => {
  const result = compileRgd({
    apiVersion: "kro.run/v1alpha1",
    kind: "ResourceGraphDefinition",
    metadata: { name: "g" },
    spec: {
      resourceKind: { group: "t.example.com", version: "v1", kind: "SApp" },
      helm: {
        templates: { "c/templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" },
        charts: [{ templatePrefix: "c/", valuesPath: [], metadata: { name: "c", version: "1.0.0" }, files: {} }],
      },
      childResources: [{ id: "a", apiVersion: "v1", kind: "ConfigMap", manifests: "c/templates/a.yaml" }],
    },
  });
  assert.ok(result.graph, JSON.stringify(result.issues));
  return result.graph;
})();

const evaluation = { nodes: [], apply: [], pending: false, watches: [], externals: [] } as InstanceEvaluation;
const fakeContext = (started: (call: number) => boolean): { ctx: ControllerContext; calls: () => number } => {
  let calls = 0;
  const ctx = {
    watches: {
      watchExternals: () => Promise.resolve({ errors: new Map<string, string>(), started: started(calls++) }),
    },
  } as unknown as ControllerContext;
  return { ctx, calls: () => calls };
};

describe("settleScopes", () => {
  it("evaluates again while new scopes start, and stops when none does", async () => {
    const { ctx } = fakeContext((call) => call < 2);
    let evaluations = 0;
    const errors = new Map<string, string>();
    await settleScopes(ctx, "k", graph, errors, () => {
      evaluations++;
      return Promise.resolve(evaluation);
    });
    assert.equal(evaluations, 3);
    assert.deepEqual([...errors], []);
  });

  it("past the bound, the chart's children get an error instead of an apply built on unsettled reads", async () => {
    const { ctx } = fakeContext(() => true);
    let evaluations = 0;
    const errors = new Map<string, string>();
    await settleScopes(ctx, "k", graph, errors, () => {
      evaluations++;
      return Promise.resolve(evaluation);
    });
    assert.equal(evaluations, MAX_SCOPE_PASSES + 1);
    assert.match(errors.get("a") ?? "", /lookups did not settle: after 5 renders/);
  });
});
