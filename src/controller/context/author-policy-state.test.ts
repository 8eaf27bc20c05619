import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AuthorPolicyState, SETTLE_MS } from "./author-policy-state.js";

const policy = (expression: string) => ({
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "kro-author-app" },
  spec: { validations: [{ expression }] },
});
const binding = {
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: { name: "kro-author-app" },
  spec: { policyName: "kro-author-app", validationActions: ["Deny"] },
};
/** What the server answers an apply with: our spec plus its defaults. */
const stored = (o: { kind: string; metadata: { name: string }; spec: Record<string, unknown> }) => ({
  ...o,
  spec: { ...o.spec, failurePolicy: "Fail" },
});

function installed(clock: () => number = Date.now): AuthorPolicyState {
  const state = new AuthorPolicyState(clock);
  state.expect("app", "uid-1", [policy("true"), binding]);
  state.applied("app", [stored(policy("true")), stored(binding)]);
  return state;
}

describe("AuthorPolicyState", () => {
  it("keeps a policy the cluster holds unchanged in force when re-applying it fails (an API server restart)", () => {
    const state = installed();
    state.expect("app", "uid-1", [policy("true"), binding]);
    state.installFailed("app", "cannot install the instance-author policy: connect ECONNREFUSED");
    assert.deepEqual(state.standing("app"), { inForce: true });
    assert.equal(state.suspect("app"), false, "instances written meanwhile were checked by the policy in the cluster");
  });

  it("is not in force when a changed policy could not be applied: the one in the cluster checks the old graph", () => {
    const state = installed();
    state.expect("app", "uid-1", [policy("request.userInfo.username != ''"), binding]);
    state.installFailed("app", "cannot install: 500");
    assert.equal(state.standing("app").inForce, false);
    assert.equal(state.suspect("app"), true);
  });

  it("is not in force when the first install fails, before or after the objects were built", () => {
    const built = new AuthorPolicyState();
    built.expect("app", "uid-1", [policy("true"), binding]);
    built.installFailed("app", "cannot install: 503");
    assert.equal(built.standing("app").inForce, false);
    const notBuilt = new AuthorPolicyState();
    notBuilt.installFailed("app", "discovery failed");
    assert.deepEqual(notBuilt.standing("app"), { inForce: false, reason: "discovery failed" });
  });

  it("stays breached when the policy was deleted outside the controller and restoring it fails", () => {
    const state = installed();
    assert.equal(state.observe("uid-1", "ValidatingAdmissionPolicy", "kro-author-app", undefined), "app");
    state.expect("app", "uid-1", [policy("true"), binding]);
    state.installFailed("app", "cannot install: timeout");
    assert.deepEqual(state.standing("app"), {
      inForce: false,
      reason: "ValidatingAdmissionPolicy kro-author-app was deleted",
    });
  });

  it("does not confirm a policy across an RGD recreated under the same name (a new uid)", () => {
    const state = installed();
    state.expect("app", "uid-2", [policy("true"), binding]);
    state.installFailed("app", "cannot install: 503");
    assert.equal(state.standing("app").inForce, false);
  });

  it("treats writes within the settle time after a restore as suspect, and trusts them after it", () => {
    let now = 1_000_000;
    const state = installed(() => now);
    state.observe("uid-1", "ValidatingAdmissionPolicyBinding", "kro-author-app", { policyName: "other" });
    state.expect("app", "uid-1", [policy("true"), binding]);
    state.applied("app", [stored(policy("true")), stored(binding)]);
    assert.deepEqual(state.standing("app"), { inForce: true });
    assert.equal(state.suspect("app"), true);
    now += SETTLE_MS;
    assert.equal(state.suspect("app"), false);
  });

  it("an RGD without a policy, by choice, is in force even when removing old policies fails", () => {
    const state = new AuthorPolicyState();
    state.expect("app", "uid-1", []);
    state.installFailed("app", "cannot list policies: 503");
    assert.deepEqual(state.standing("app"), { inForce: true });
  });
});

describe("AuthorPolicyState: judging writes by revision", () => {
  it("holds a write stored between the delete and the restore although it was seen before the delete event", () => {
    let now = 1_000_000;
    const state = installed(() => now);
    // The instance event (rv 205) overtook the policy's delete event (rv 200).
    state.seen("app/team-a/x", "205", 0);
    assert.equal(state.observe("uid-1", "ValidatingAdmissionPolicy", "kro-author-app", undefined, "200"), "app");
    state.expect("app", "uid-1", [policy("true"), binding]);
    state.applied("app", [
      { ...stored(policy("true")), metadata: { name: "kro-author-app", resourceVersion: "210" } },
      { ...stored(binding), metadata: { name: "kro-author-app", resourceVersion: "190" } },
    ]);
    now += 60_000;
    const writes = state.takeSeen("app/team-a/x");
    assert.equal(writes.length, 1);
    assert.equal(
      writes.some((w) => state.suspect("app", w)),
      true,
    );
    assert.equal(state.suspect("app", { resourceVersion: "199", observedAt: now }), false, "written before the delete");
    assert.equal(
      state.suspect("app", { resourceVersion: "211", observedAt: now }),
      false,
      "written after the restore settled",
    );
    assert.equal(state.seenTicket("app/team-a/x"), undefined);
  });

  it("an RGD without a policy guards nothing (no write waits for the policy watch)", () => {
    const state = new AuthorPolicyState();
    state.expect("open", "uid-9", []);
    assert.equal(state.guarded("open"), false);
    assert.equal(installed().guarded("app"), true);
  });
});
