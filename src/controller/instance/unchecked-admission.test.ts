import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AuthorPolicyState, type ControllerContext, type PolicySync, type ServedGraph } from "../context/index.js";
import { judgeWrites } from "./unchecked-admission.js";

const policy = {
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "kro-author.app.0", resourceVersion: "100" },
  spec: { validations: [] },
};

/** A policy watch that catches up only when the test says so (the delete event still on its way). */
class HeldSync implements PolicySync {
  private release: (() => void) | undefined;
  private started = 0;
  ticket(): number {
    return this.started;
  }
  caughtUp(): Promise<void> {
    this.started++;
    return new Promise((resolve) => {
      this.release = resolve;
    });
  }
  deliver(): void {
    this.release?.();
  }
}

describe("judging an instance write", () => {
  it("waits for the policy watch: an instance event that overtook the policy's delete event is held back, not reconciled", async () => {
    const authorPolicies = new AuthorPolicyState();
    authorPolicies.expect("app", "uid-1", [policy]);
    authorPolicies.applied("app", [policy]);
    const sync = new HeldSync();
    const ctx = { authorPolicies, policySync: sync } as unknown as ControllerContext;
    const served = { rgdName: "app" } as ServedGraph;
    // The API server admitted x (rv 205) without the policy deleted at rv 200; the controller sees x first.
    authorPolicies.seen("app/ns/x", "205", sync.ticket());
    const verdict = judgeWrites(ctx, served, "app/ns/x");
    await new Promise((r) => setTimeout(r, 10));
    // Now the delete event arrives (the barrier's list made the informer show it), then the restore.
    authorPolicies.observe("uid-1", "ValidatingAdmissionPolicy", "kro-author.app.0", undefined, "200");
    authorPolicies.expect("app", "uid-1", [policy]);
    authorPolicies.applied("app", [{ ...policy, metadata: { ...policy.metadata, resourceVersion: "230" } }]);
    sync.deliver();
    assert.equal(await verdict, "judged");
    assert.equal(authorPolicies.isMarkedUnchecked("app/ns/x"), true, "x was admitted while the policy was deleted");
  });

  it("waits (does not judge) while the policy is not in force after catching up", async () => {
    const authorPolicies = new AuthorPolicyState();
    authorPolicies.expect("app", "uid-1", [policy]);
    authorPolicies.applied("app", [policy]);
    const ctx = {
      authorPolicies,
      policySync: { ticket: () => 0, caughtUp: () => Promise.resolve() },
    } as unknown as ControllerContext;
    authorPolicies.seen("app/ns/y", "150", 0);
    authorPolicies.observe("uid-1", "ValidatingAdmissionPolicy", "kro-author.app.0", undefined, "200");
    assert.equal(await judgeWrites(ctx, { rgdName: "app" } as ServedGraph, "app/ns/y"), "wait");
    assert.equal(authorPolicies.seenTicket("app/ns/y"), 0, "still to be judged");
  });
});
