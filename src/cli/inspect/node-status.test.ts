import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { NODE_STATES, type NodeEvaluation, type PendingReason } from "../../runtime/index.js";
import { describeNode, instancePicture } from "./node-status.js";

function node(state: NodeEvaluation["state"], extra: { pending?: PendingReason; error?: string } = {}): NodeEvaluation {
  return {
    id: "n",
    state,
    excluded: state === NODE_STATES.skipped,
    ready: state === NODE_STATES.synced,
    desired: [],
    observed: [],
    ...extra,
  };
}

describe("describeNode", () => {
  it("says what a resource waits on, in words and as a picture state", () => {
    assert.deepEqual(describeNode(node(NODE_STATES.synced)), { text: "ready", picture: "ready" });
    assert.deepEqual(describeNode(node(NODE_STATES.skipped)), {
      text: "skipped (includeWhen is false)",
      picture: "excluded",
    });
    assert.deepEqual(
      describeNode(
        node(NODE_STATES.inProgress, {
          pending: { kind: "dependency-not-ready", message: "m", waitingOn: ["deploy", "cm"] },
        }),
      ),
      { text: "waiting on deploy, cm", picture: "pending" },
    );
    assert.deepEqual(
      describeNode(
        node(NODE_STATES.inProgress, {
          pending: { kind: "data-pending", message: "m", missingPath: "svc.status.loadBalancer.ingress" },
        }),
      ),
      { text: "waiting for svc.status.loadBalancer.ingress", picture: "pending" },
    );
    assert.deepEqual(
      describeNode(
        node(NODE_STATES.waitingForReadiness, {
          pending: { kind: "readiness", message: "m", expression: "deploy.status.ready" },
        }),
      ),
      { text: "applied, waiting for readiness (deploy.status.ready)", picture: "waiting" },
    );
    assert.deepEqual(describeNode(node(NODE_STATES.waitingForReadiness)), {
      text: "applied, waiting for readiness",
      picture: "waiting",
    });
    assert.deepEqual(describeNode(node(NODE_STATES.inProgress, { pending: { kind: "terminating", message: "m" } })), {
      text: "waiting for the old object to finish deleting",
      picture: "pending",
    });
  });

  it("puts errors first: the controller's apply error, then the runtime's", () => {
    assert.deepEqual(describeNode(node(NODE_STATES.synced), "apply Deployment x: Invalid"), {
      text: "error: apply Deployment x: Invalid",
      picture: "error",
    });
    assert.deepEqual(describeNode(node(NODE_STATES.error, { error: "no such key: foo" })), {
      text: "error: no such key: foo",
      picture: "error",
    });
  });

  it("colours the instance by the state the controller wrote", () => {
    assert.equal(instancePicture("ACTIVE"), "ready");
    assert.equal(instancePicture("ERROR"), "error");
    assert.equal(instancePicture("IN_PROGRESS"), "waiting");
    assert.equal(instancePicture(undefined), "pending");
  });
});
