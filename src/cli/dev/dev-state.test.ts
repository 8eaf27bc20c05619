import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { InstanceEvaluatedEvent } from "../../controller/index.js";
import type { KubeObject } from "../../kube/index.js";
import { NODE_STATES } from "../../runtime/index.js";
import { DevState, type InstanceRef } from "./dev-state.js";

const ref: InstanceRef = { apiVersion: "kro.run/v1alpha1", kind: "WebApp", namespace: "default", name: "demo" };
const served = { rgdName: "webapp", group: "kro.run", kind: "WebApp" };
const ready = (status: string, generation?: number) => ({
  type: "Ready",
  status,
  message: status === "True" ? "" : "resource deploy is not ready",
  ...(generation === undefined ? {} : { observedGeneration: generation }),
});
const activeRgd = {
  status: { state: "Active", conditions: [{ type: "ResourceGraphAccepted", status: "True" }] },
} as KubeObject;

function event(deployState: "SYNCED" | "WAITING_FOR_READINESS"): InstanceEvaluatedEvent {
  const deploy = {
    id: "deploy",
    state: deployState,
    excluded: false,
    ready: deployState === "SYNCED",
    desired: [],
    observed: [],
  } as const;
  return {
    rgdName: "webapp",
    instance: { apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace, name: ref.name },
    evaluation: {
      nodes: [
        deploy,
        {
          id: "svc",
          state: NODE_STATES.inProgress,
          excluded: false,
          ready: false,
          desired: [],
          observed: [],
          pending: { kind: "dependency-not-ready", message: "", waitingOn: ["deploy"] },
        },
      ],
      apply: [],
      pending: true,
      watches: [],
      externals: [],
    },
    applyErrors: {},
    status: { state: "IN_PROGRESS", conditions: [ready("False")] },
  };
}

describe("dev state", () => {
  it("follows an instance from applied to Ready and then settles", () => {
    const state = new DevState();
    state.track([{ ref, served }]);
    assert.deepEqual(
      state.rows(),
      [{ label: "webapp/demo", summary: "waiting for ResourceGraphDefinition webapp", resources: [] }].map((r) => ({
        ...r,
        summary: `not Ready: ${r.summary}`,
      })),
    );
    state.onApply(ref, { state: "waiting", message: "waiting for kind WebApp (kro.run/v1alpha1) to be served" });
    assert.match(state.rows()[0]?.summary ?? "", /^not applied yet: waiting for ResourceGraphDefinition webapp$/);
    state.onRgdRead("webapp", activeRgd);
    state.onApply(ref, { state: "applied" });
    assert.equal(state.rows()[0]?.summary, "applied, waiting for the controller");

    state.onEvaluated(event("WAITING_FOR_READINESS"));
    assert.deepEqual(state.rows()[0], {
      label: "webapp/demo",
      summary: "IN_PROGRESS, not Ready: resource deploy is not ready",
      resources: [
        { id: "deploy", text: "applied, waiting for readiness" },
        { id: "svc", text: "waiting on deploy" },
      ],
    });
    assert.equal(state.verdict().settled, false);

    state.onInstanceRead(ref, {
      metadata: { generation: 1 },
      status: { state: "ACTIVE", conditions: [ready("True", 1)] },
    });
    assert.equal(state.rows()[0]?.summary, "ACTIVE, Ready (waiting for the reconcile to finish)");
    state.onEvaluated({ ...event("SYNCED"), status: { state: "ACTIVE", conditions: [ready("True", 1)] } });
    assert.deepEqual(state.verdict(), { ready: 1, total: 1, settled: true, notReady: [], rgdProblems: [] });
    assert.equal(state.rows()[0]?.summary, "ACTIVE, Ready");
  });

  it("waits for the controller's evaluation to agree before counting a polled Ready", () => {
    const state = new DevState();
    state.track([{ ref, served }]);
    state.onRgdRead("webapp", activeRgd);
    state.onEvaluated(event("WAITING_FOR_READINESS"));
    state.onInstanceRead(ref, {
      metadata: { generation: 1 },
      status: { state: "ACTIVE", conditions: [ready("True", 1)] },
    });
    assert.equal(state.verdict().ready, 0, "the reconcile that wrote Ready has not reported yet");
    state.onEvaluated({ ...event("SYNCED"), status: { state: "ACTIVE", conditions: [ready("True", 1)] } });
    assert.equal(state.verdict().ready, 1);
  });

  it("does not count a Ready condition observed for an older spec", () => {
    const state = new DevState();
    state.track([{ ref, served }]);
    state.onRgdRead("webapp", activeRgd);
    state.onInstanceRead(ref, {
      metadata: { generation: 2 },
      status: { state: "ACTIVE", conditions: [ready("True", 1)] },
    });
    assert.equal(state.verdict().ready, 0);
    assert.equal(state.rows()[0]?.summary, "ACTIVE, updating to generation 2");
  });

  it("settles, not Ready, when the RGD is not accepted, and names it", () => {
    const state = new DevState();
    state.track([{ ref, served }]);
    state.onApply(ref, { state: "applied" });
    state.onRgdRead("webapp", {
      status: {
        state: "Inactive",
        conditions: [{ type: "ResourceGraphAccepted", status: "False", message: "spec.resources[0]: bad" }],
      },
    });
    const verdict = state.verdict();
    assert.equal(verdict.settled, true);
    assert.equal(verdict.ready, 0);
    assert.deepEqual(verdict.notReady, [
      "webapp/demo: not Ready: ResourceGraphDefinition webapp is Inactive (ResourceGraphAccepted=False: spec.resources[0]: bad)",
    ]);
    assert.deepEqual(verdict.rgdProblems, [
      "ResourceGraphDefinition webapp: ResourceGraphAccepted=False: spec.resources[0]: bad",
    ]);
  });

  it("gives an RGD's live colours when exactly one instance uses it", () => {
    const state = new DevState();
    state.track([{ ref, served }]);
    state.onEvaluated(event("SYNCED"));
    assert.deepEqual(state.colorsFor("webapp"), { instance: "waiting", deploy: "ready", svc: "pending" });
    state.track([
      { ref, served },
      { ref: { ...ref, name: "other" }, served },
    ]);
    assert.equal(state.colorsFor("webapp"), undefined, "two instances: no single picture");
  });

  it("keeps what it knows about instances still in the files and drops the rest", () => {
    const state = new DevState();
    state.track([{ ref, served }]);
    state.onEvaluated(event("SYNCED"));
    state.track([
      { ref, served },
      { ref: { ...ref, name: "other" }, served },
    ]);
    assert.equal(state.rows()[0]?.resources.length, 2);
    state.track([{ ref: { ...ref, name: "other" }, served }]);
    assert.deepEqual(
      state.refs().map((r) => r.name),
      ["other"],
    );
  });
});
