// The planner's inputs read from objects and its decisions written back: what one round writes
// is what the next round (or the next leader, after a restart) reads, malformed fields read as
// absent, and the verdicts the RGD keeps are dropped once they no longer mean anything.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRolloutPolicy } from "../../graph/index.js";
import {
  assignmentPatch,
  pinNotePatch,
  pinNotes,
  planRollout,
  rolloutControlOf,
  rolloutInstanceOf,
  rolloutStatusOf,
  type RolloutControl,
} from "./index.js";

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

describe("rollout records", () => {
  it("reads an instance's revision record, labels, creation time and pin", () => {
    const instance = rolloutInstanceOf(
      {
        metadata: {
          name: "shop",
          namespace: "staging",
          labels: { tier: "web" },
          annotations: { "kro.run/pin-graph-revision": "3" },
          creationTimestamp: iso(T0),
        },
        status: {
          graphRevision: {
            assigned: 4,
            assignedAt: iso(T0 + 1000),
            evaluated: 3,
            healthyAt: iso(T0 + 2000),
            unhealthy: "Ready=False: x",
          },
        },
      },
      "k",
    );
    assert.deepEqual(instance, {
      key: "k",
      name: "shop",
      namespace: "staging",
      labels: { tier: "web" },
      createdAt: T0,
      assigned: 4,
      assignedAt: T0 + 1000,
      evaluated: 3,
      healthyAt: T0 + 2000,
      unhealthy: "Ready=False: x",
      pin: "3",
    });
    assert.deepEqual(
      rolloutInstanceOf(
        { metadata: { name: "x" }, status: { graphRevision: { assigned: "4", evaluated: 0, assignedAt: "soon" } } },
        "k",
      ),
      { key: "k", name: "x", labels: {}, createdAt: 0 },
      "malformed fields read as absent",
    );
  });

  it("reads the member clusters an instance's inventory places children in", () => {
    const inventory = JSON.stringify({
      v: 3,
      items: [
        ["v1", "ConfigMap", "ns", "a", "u1", "cm"],
        ["v1", "ConfigMap", "ns", "b", "u2", "remote", "", "eu-west"],
        ["v1", "Secret", "ns", "c", "u3", "secret", "a", "us-east"],
        ["v1", "Secret", "ns", "d", "u4", "other", "", "eu-west"],
      ],
    });
    const key = { "internal.kro.run/inventory": JSON.stringify({ v: 3, key: "k1" }) };
    const placed = rolloutInstanceOf(
      { metadata: { name: "x", annotations: key }, status: { kroInventory: inventory } },
      "ns/x",
    );
    assert.deepEqual(placed.clusters, ["eu-west", "us-east"]);
    const unreadable = rolloutInstanceOf(
      { metadata: { name: "y", annotations: key }, status: { kroInventory: "{" } },
      "ns/y",
    );
    assert.equal(unreadable.clusters, undefined, "an unreadable inventory places it nowhere");
  });

  it("reads the pause annotation and the kept verdicts", () => {
    const control = rolloutControlOf({
      metadata: { annotations: { "kro.run/rollout-paused": "True" } },
      status: {
        rollout: {
          rejected: [{ revision: 2, by: "command", at: iso(T0) }, { revision: "x" }],
          halted: { revision: 3, wave: 1, at: iso(T0), instances: [{ key: "a", reason: "r" }, { reason: "no key" }] },
          resumedAt: iso(T0 + 5),
        },
      },
    });
    assert.deepEqual(control, {
      paused: true,
      rejected: [{ revision: 2, by: "command", at: T0 }],
      halted: { revision: 3, wave: 1, at: T0, instances: [{ key: "a", reason: "r" }] },
      resumedAt: T0 + 5,
    });
    assert.deepEqual(rolloutControlOf({}), { paused: false, rejected: [] });
  });

  it("reports the pins it does not honour, naming the instance and why", () => {
    const policy = compileRolloutPolicy({ pinning: { maxRevisionsBack: 1 } }).policy;
    const pinned = (key: string, pin: string) => ({
      key,
      namespace: "ns",
      name: key.slice(3),
      labels: {},
      createdAt: T0,
      assigned: 3,
      evaluated: 3,
      healthyAt: T0,
      pin,
    });
    const control: RolloutControl = { paused: false, rejected: [] };
    const plan = planRollout({
      policy,
      revisions: [1, 2, 3],
      instances: [pinned("ns/ok", "2"), pinned("ns/far", "1"), pinned("ns/gone", "9")],
      control,
      now: T0,
    });
    assert.ok(plan !== undefined);
    const status = rolloutStatusOf(plan, control, [1, 2, 3], (key) => ({ namespace: "ns", name: key.slice(3) })) as {
      pinProblems?: { name: string; reason: string }[];
    };
    assert.deepEqual(
      status.pinProblems?.map((p) => p.name),
      ["far", "gone"],
    );
    for (const problem of status.pinProblems ?? []) assert.notEqual(problem.reason, "");
  });

  it("tells each instance its own pin's verdict once: written when it appears or changes, cleared when honoured", () => {
    const policy = compileRolloutPolicy({ pinning: { maxRevisionsBack: 1 } }).policy;
    const control: RolloutControl = { paused: false, rejected: [] };
    const round = (pins: Record<string, { pin?: string; pinProblem?: string }>) => {
      const instances = Object.entries(pins).map(([name, p]) => ({
        key: `ns/${name}`,
        namespace: "ns",
        name,
        labels: {},
        createdAt: T0,
        assigned: 3,
        evaluated: 3,
        healthyAt: T0,
        ...p,
      }));
      const plan = planRollout({ policy, revisions: [1, 2, 3], instances, control, now: T0 });
      assert.ok(plan !== undefined);
      return pinNotes(plan, instances);
    };
    const first = round({ far: { pin: "1" }, ok: { pin: "2" }, none: {} });
    assert.deepEqual(
      first.map((n) => n.key),
      ["ns/far"],
    );
    const reason = first[0]?.problem;
    assert.ok(reason !== undefined && reason !== "");
    assert.deepEqual(round({ far: { pin: "1", pinProblem: reason } }), [], "already told: nothing written again");
    assert.deepEqual(round({ far: { pin: "2", pinProblem: reason } }), [{ key: "ns/far" }], "honoured now: cleared");
    assert.deepEqual(round({ far: { pinProblem: reason } }), [{ key: "ns/far" }], "unpinned: cleared");
    assert.deepEqual(pinNotePatch(undefined), { status: { graphRevision: { pinProblem: null } } });
    assert.deepEqual(pinNotePatch("gone"), { status: { graphRevision: { pinProblem: "gone" } } });
  });

  it("writes what the next round reads: a halt and a rejection survive a restart; stale ones are dropped", () => {
    const policy = compileRolloutPolicy({ gate: { readyWithin: "1m" }, onFailure: "Rollback" }).policy;
    const instance = {
      key: "ns/a",
      namespace: "ns",
      name: "a",
      labels: {},
      createdAt: T0,
      assigned: 2,
      assignedAt: T0,
      evaluated: 2,
      unhealthy: "Ready=False: CrashLoop",
    };
    const control: RolloutControl = { paused: false, rejected: [] };
    const plan = planRollout({ policy, revisions: [1, 2], instances: [instance], control, now: T0 + 60_000 });
    assert.equal(plan?.phase, "RolledBack");
    const status = rolloutStatusOf(plan, control, [1, 2], () => ({ namespace: "ns", name: "a" }));
    const reread = rolloutControlOf({ status: { rollout: JSON.parse(JSON.stringify(status)) as unknown } });
    assert.deepEqual(reread.rejected, [{ revision: 2, by: "gate", at: T0 + 60_000 }]);
    assert.deepEqual(
      reread.halted?.instances.map((i) => i.key),
      ["ns/a"],
    );

    const later = planRollout({
      policy,
      revisions: [1, 2],
      instances: [{ ...instance, assigned: 1, assignedAt: T0 + 60_000 }],
      control: reread,
      now: T0 + 90_000,
    });
    assert.equal(later?.target, 1);
    const kept = rolloutStatusOf(later, reread, [1, 2], () => ({ name: "a" }));
    assert.equal(kept.halted, undefined, "a halt of a revision that is no longer the target is dropped");
    assert.deepEqual(
      rolloutStatusOf(later, reread, [1], () => ({ name: "a" })).rejected,
      undefined,
      "gone revisions are forgotten",
    );
  });

  it("assigns a revision with a status merge patch", () => {
    assert.deepEqual(assignmentPatch({ key: "k", from: 1, to: 2, why: "wave" }, T0), {
      status: { graphRevision: { assigned: 2, assignedAt: "2026-01-01T00:00:00.000Z" } },
    });
  });
});
