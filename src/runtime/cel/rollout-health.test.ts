import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileValue } from "../../../test/unit-support/runtime/fixtures.js";
import { unmetHealthCheck } from "./rollout-health.js";

const rgd = (healthyWhen: string[] | undefined) => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "ResourceGraphDefinition",
  metadata: { name: "h" },
  spec: {
    schema: {
      apiVersion: "v1alpha1",
      kind: "Healthy",
      spec: { want: "integer | default=1" },
      status: { count: "${int(cm.data.count)}" },
    },
    rollout: { gate: healthyWhen === undefined ? {} : { healthyWhen } },
    resources: [
      { id: "cm", template: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "h" }, data: { count: "2" } } },
    ],
  },
});
const instance = (status: Record<string, unknown>) => ({
  apiVersion: "kro.run/v1alpha1",
  kind: "Healthy",
  metadata: { name: "a", namespace: "default" },
  spec: { want: 3 },
  status,
});

describe("a rollout's healthyWhen", () => {
  it("holds or not over the instance as it is about to be written, status included", () => {
    const graph = compileValue(rgd(["${schema.status.count >= schema.spec.want}"]));
    assert.equal(unmetHealthCheck(graph, instance({ count: 3 })), undefined);
    assert.match(
      unmetHealthCheck(graph, instance({ count: 2 })) ?? "",
      /schema\.status\.count >= schema\.spec\.want.* is false/,
    );
  });
  it("a field not reported yet is not healthy yet, with why; no healthyWhen always holds", () => {
    const graph = compileValue(rgd(["${schema.status.count >= 1}"]));
    assert.match(unmetHealthCheck(graph, instance({})) ?? "", /cannot be evaluated yet/);
    assert.equal(unmetHealthCheck(compileValue(rgd(undefined)), instance({})), undefined);
  });
});
