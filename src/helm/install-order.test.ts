import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { installDependencies, installRank } from "./install-order.js";

describe("Helm's install order as dependencies", () => {
  it("ranks kinds as Helm's InstallOrder does, unknown kinds last", () => {
    assert.ok(installRank("Namespace") < installRank("ServiceAccount"));
    assert.ok(installRank("ConfigMap") < installRank("Deployment"));
    assert.ok(installRank("Deployment") < installRank("Ingress"));
    assert.equal(installRank("Widget"), installRank("Whatever"));
    assert.ok(installRank("Widget") > installRank("ValidatingWebhookConfiguration"));
  });
  it("gates on the nearest earlier kinds that are ready once they exist, never on --wait kinds", () => {
    const deps = installDependencies([
      { id: "sa", kind: "ServiceAccount", waits: false },
      { id: "cm", kind: "ConfigMap", waits: false },
      { id: "cm2", kind: "ConfigMap", waits: false },
      { id: "svc", kind: "Service", waits: true },
      { id: "deploy", kind: "Deployment", waits: true },
      { id: "ing", kind: "Ingress", waits: false },
    ]);
    assert.deepEqual(deps.get("sa"), []);
    assert.deepEqual(deps.get("cm"), ["sa"]);
    assert.deepEqual(deps.get("svc"), ["cm", "cm2"]);
    assert.deepEqual(deps.get("deploy"), ["cm", "cm2"], "a Deployment does not wait for its Service's readiness");
    assert.deepEqual(deps.get("ing"), ["cm", "cm2"]);
  });
  it("never gates on a node with another enabling condition (an excluded dependency would exclude the dependent)", () => {
    const deps = installDependencies([
      { id: "rootCm", kind: "ConfigMap", waits: false },
      { id: "subCm", kind: "ConfigMap", waits: false, condition: "sub" },
      { id: "rootDeploy", kind: "Deployment", waits: true },
      { id: "subDeploy", kind: "Deployment", waits: true, condition: "sub" },
      { id: "otherDeploy", kind: "Deployment", waits: true, condition: "other" },
    ]);
    assert.deepEqual(deps.get("rootDeploy"), ["rootCm"]);
    assert.deepEqual(deps.get("subDeploy"), ["rootCm", "subCm"]);
    assert.deepEqual(deps.get("otherDeploy"), ["rootCm"]);
  });
});
