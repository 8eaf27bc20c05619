import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileFixture, dig, instanceOf } from "../../test/unit-support/runtime/fixtures.js";
import { renderInstance } from "./render.js";
import type { KubeJson } from "./types.js";

const NOW = "2026-01-01T00:00:00Z";
const webapp = compileFixture("webapp");
const instance = instanceOf(
  webapp,
  { name: "shop", replicas: 2, regions: ["eu"], ingress: { enabled: true } },
  { uid: undefined },
);
const names = (objects: readonly KubeJson[]) =>
  objects.map((o) => `${String(o.kind)}/${String(dig(o, "metadata", "name"))}`);

describe("renderInstance", () => {
  it("simulates apply rounds: resources without readyWhen unlock their dependents, readyWhen on status stops them", () => {
    const result = renderInstance(webapp, instance, { now: NOW });
    assert.deepEqual(names(result.evaluation.apply), ["Deployment/shop", "ConfigMap/shop-eu"]);
    assert.deepEqual(
      result.unrendered.map((n) => [n.id, n.pending?.kind]),
      [
        ["svc", "dependency-not-ready"],
        ["ing", "dependency-not-ready"],
      ],
    );
    assert.equal(result.status.state, "IN_PROGRESS");
    assert.deepEqual(
      result.pendingStatus.map((f) => [f.path, f.missingPath]),
      [
        ["status.available", "deploy.status"],
        ["status.url", "svc"],
      ],
    );
  });

  it("without a uid the children are labelled by instance name and namespace (no instance-id)", () => {
    const [deploy] = renderInstance(webapp, instance, { now: NOW }).evaluation.apply;
    assert.equal(dig(deploy, "metadata", "labels", "kro.run/instance-id"), undefined);
    assert.equal(dig(deploy, "metadata", "labels", "kro.run/instance-name"), "demo");
  });

  it("observed objects win over simulated ones and let the graph continue", () => {
    const live = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "shop", namespace: "team" },
      status: { availableReplicas: 2 },
    };
    const result = renderInstance(webapp, instance, { now: NOW, observed: [live] });
    assert.deepEqual(names(result.evaluation.apply), [
      "Deployment/shop",
      "Service/shop",
      "Ingress/shop",
      "ConfigMap/shop-eu",
    ]);
    assert.deepEqual(result.unrendered, []);
    assert.equal(result.status.available, 2);
    assert.equal(result.status.state, "ACTIVE");
  });

  it("assumeReady renders everything; cluster-only values stay pending and are named", () => {
    const result = renderInstance(webapp, instance, { now: NOW, assumeReady: true });
    assert.equal(result.evaluation.apply.length, 4);
    assert.deepEqual(result.unrendered, []);
    assert.deepEqual(
      result.pendingStatus.map((f) => f.path),
      ["status.available"],
    );
    assert.equal(result.status.url, "http://shop.team");
  });
});
