import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createKroCelEnvironment } from "./environment.js";
import { referencedPaths } from "./reference-paths.js";

const env = createKroCelEnvironment({ enableRuntime: true });
const paths = (expression: string): Record<string, string[]> =>
  Object.fromEntries(
    [...referencedPaths(env, expression)].map(([root, list]) => [root, list.map((p) => p.join(".")).sort()]),
  );

describe("referencedPaths", () => {
  const cases: [string, Record<string, string[]>][] = [
    ["deployment.status.availableReplicas", { deployment: ["status.availableReplicas"] }],
    ["has(svc.spec.clusterIP) && svc.spec.clusterIP != ''", { svc: ["spec.clusterIP", "spec.clusterIP"] }],
    ['cm.data["my.key"] + cm.metadata.name', { cm: ["data.my.key", "metadata.name"] }],
    ["d.?spec.?replicas.orValue(1)", { d: ["spec.replicas"] }],
    // Anything but a plain field access reads everything below the point where the chain stops.
    ["d.spec.containers.map(c, c.image)", { d: ["spec.containers"], c: ["", "image"] }],
    ["d.spec.containers[0].image", { d: ["spec.containers"] }],
    ["d.spec[schema.spec.key]", { d: ["spec"], schema: ["spec.key"] }],
    ["d", { d: [""] }],
    ["string(d)", { d: [""] }],
    ["cel.bind(z, d.spec, z.q)", { cel: [""], z: ["", "q"], d: ["spec"] }],
    ["size(d.metadata.labels) > 0 ? d.status : {}", { d: ["metadata.labels", "status"] }],
  ];
  for (const [expression, expected] of cases) {
    it(expression, () => {
      assert.deepEqual(paths(expression), expected);
    });
  }

  it("throws a parse error for what does not parse", () => {
    assert.throws(() => referencedPaths(env, "d.spec."), /parse|Unexpected|expected/i);
  });
});
