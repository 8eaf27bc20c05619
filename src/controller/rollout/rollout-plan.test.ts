// The rollout planner step by step in fake time, over a fleet that reconciles and turns healthy
// as told (test/unit-support/controller/rollout-fleet.ts): waves by selector, namespace and
// percentage, the cap on instances updating at once, pauses, the gate's deadline halting the
// rollout, automatic and commanded rollback, pins within the RGD author's bound, instances created
// or left on a gone revision, a restart between writing moves, and no policy at all.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRolloutPolicy, type RolloutPolicy } from "../../graph/index.js";
import { MINUTE, RolloutFleet } from "../../../test/unit-support/controller/rollout-fleet.js";
import { planRollout, runningRevision } from "./index.js";

function policyOf(spec: Record<string, unknown>): RolloutPolicy {
  const { policy, issues } = compileRolloutPolicy(spec);
  assert.ok(policy !== undefined, JSON.stringify(issues));
  return policy;
}

/** The audit's wave moves to `revision`, by key, in order. */
const movedTo = (fleet: RolloutFleet, revision: number) =>
  fleet.audit.filter((m) => m.to === revision && m.why === "wave").map((m) => m.key);

describe("rollout planner", () => {
  it("without a policy plans nothing: every instance runs the newest revision at once, as in kro", () => {
    const fleet = new RolloutFleet(undefined);
    for (let i = 0; i < 5; i++) fleet.add(`app-${i}`);
    fleet.revisions = [1, 2];
    assert.equal(fleet.plan(), undefined);
    for (const instance of fleet.instances.values())
      assert.equal(
        runningRevision(undefined, instance.assigned, 2),
        2,
        "an old assignment means nothing without a policy",
      );
    assert.equal(runningRevision(policyOf({}), 1, 2), 1);
    assert.equal(runningRevision(policyOf({}), undefined, 2), 2);
  });

  it("records instances where they run when a policy is new, and reports the rollout complete", () => {
    const fleet = new RolloutFleet(policyOf({ maxUpdating: 1 }));
    fleet.add("a");
    fleet.add("b");
    for (const instance of fleet.instances.values()) delete instance.assigned;
    const plan = fleet.round();
    assert.deepEqual(
      plan.moves.map((m) => [m.key, m.from, m.to, m.why]),
      [
        ["default/a", 1, 1, "adopt"],
        ["default/b", 1, 1, "adopt"],
      ],
    );
    assert.equal(plan.phase, "Complete");
    assert.deepEqual(plan.condition, {
      type: "Propagated",
      status: "True",
      reason: "AllPropagated",
      message: "2/2 instances healthy at revision 1",
    });
  });

  it("moves wave after wave: selector, then namespaces, then a cumulative percentage, then the rest", () => {
    const fleet = new RolloutFleet(
      policyOf({
        waves: [
          { name: "canary", selector: { matchLabels: { canary: "true" } } },
          { name: "staging", namespaces: ["staging"] },
          { name: "half", percent: 50 },
        ],
        maxUpdating: 3,
      }),
    );
    for (let i = 0; i < 13; i++) fleet.add(`prod-${i}`, { namespace: "prod", labels: i < 2 ? { canary: "true" } : {} });
    for (let i = 0; i < 5; i++) fleet.add(`stage-${i}`, { namespace: "staging" });
    fleet.revisions = [1, 2];

    const first = fleet.round();
    assert.equal(first.wave?.name, "canary");
    assert.deepEqual(movedTo(fleet, 2), ["prod/prod-0", "prod/prod-1"]);
    assert.match(
      first.condition.message,
      /^wave 1\/4 \(canary\): 0\/18 instances healthy at revision 2, 2 updating \(at most 3\)$/,
    );

    const waveOf = new Map<string, string>();
    const final = fleet.runUntil(
      (plan) => plan.phase === "Complete",
      MINUTE,
      100,
      (plan) => {
        for (const move of plan.moves) waveOf.set(move.key, plan.wave?.name ?? "");
      },
    );
    assert.equal(final.condition.reason, "AllPropagated");
    const order = movedTo(fleet, 2).map((key) => waveOf.get(key));
    const firstOf = (wave: string) => order.indexOf(wave);
    const lastOf = (wave: string) => order.lastIndexOf(wave);
    assert.ok(lastOf("canary") < firstOf("staging") && lastOf("staging") < firstOf("half"), order.join(","));
    assert.ok(lastOf("half") < firstOf("(rest)"), order.join(","));
    assert.equal(order.filter((w) => w === "staging").length, 5);
    // 50 % of 18 is 9 instances by the end of "half": 2 canaries and 5 staging ones before it.
    assert.equal(order.filter((w) => w === "half").length, 2);
    assert.equal(order.filter((w) => w === "(rest)").length, 9);
    for (const instance of fleet.instances.values()) assert.equal(instance.evaluated, 2);
  });

  it("moves by cluster: instances with a child in the wave's clusters first, then the rest", () => {
    const fleet = new RolloutFleet(
      policyOf({
        waves: [
          { name: "eu", clusters: ["eu-west"] },
          { name: "us", clusters: ["us-east"] },
        ],
        maxUpdating: 10,
      }),
    );
    fleet.add("shop-eu", { clusters: ["eu-west"] });
    fleet.add("shop-both", { clusters: ["us-east", "eu-west"] });
    fleet.add("shop-us", { clusters: ["us-east"] });
    fleet.add("shop-hub");
    fleet.revisions = [1, 2];
    const first = fleet.round();
    assert.equal(first.wave?.name, "eu");
    assert.deepEqual(movedTo(fleet, 2).sort(), ["default/shop-both", "default/shop-eu"]);
    const waveOf = new Map<string, string>();
    fleet.runUntil(
      (plan) => plan.phase === "Complete",
      MINUTE,
      100,
      (plan) => {
        for (const move of plan.moves) waveOf.set(move.key, plan.wave?.name ?? "");
      },
    );
    assert.equal(waveOf.get("default/shop-us"), "us");
    assert.equal(waveOf.get("default/shop-hub"), "(rest)", "no child in a member cluster: the last wave");
  });

  it("never has more instances updating than maxUpdating, and uses all of it (100 instances, uneven health)", () => {
    const fleet = new RolloutFleet(
      policyOf({ maxUpdating: "7%", gate: { readyWithin: "1h" } }),
      (instance) => (Number(instance.name.split("-")[1]) % 5) * MINUTE + 30_000,
    );
    for (let i = 0; i < 100; i++) fleet.add(`app-${i}`);
    fleet.revisions = [1, 2];
    let peak = 0;
    fleet.runUntil(
      (plan) => plan.phase === "Complete",
      20_000,
      1000,
      (plan) => {
        assert.equal(plan.counts.maxUpdating, 7);
        const updating = fleet.updatingNow();
        assert.ok(updating <= 7, `${updating} updating at ${new Date(fleet.now).toISOString()}`);
        assert.equal(plan.counts.updating, updating, "the planner's count is the fleet's");
        peak = Math.max(peak, updating);
      },
    );
    assert.equal(peak, 7);
    assert.equal(movedTo(fleet, 2).length, 100);
  });

  it("waits pauseBetweenWaves after a wave is healthy before the next one moves", () => {
    const fleet = new RolloutFleet(
      policyOf({
        waves: [{ name: "canary", selector: { matchLabels: { canary: "true" } } }],
        pauseBetweenWaves: "30m",
      }),
    );
    fleet.add("canary", { labels: { canary: "true" } });
    fleet.add("other");
    fleet.revisions = [1, 2];
    fleet.round();
    fleet.reconcile();
    fleet.advance(MINUTE);
    const healthyAt = fleet.get("default/canary").healthyAt ?? 0;
    const waiting = fleet.round();
    assert.equal(waiting.phase, "WaitingBetweenWaves");
    assert.equal(waiting.nextCheckAt, healthyAt + 30 * MINUTE);
    assert.deepEqual(waiting.moves, []);
    assert.match(waiting.condition.message, /^wave 2\/2 \(\(rest\)\) starts at 2026-01-01T00:31:00.000Z/);
    fleet.now = healthyAt + 30 * MINUTE - 1;
    assert.deepEqual(fleet.round().moves, []);
    fleet.now = healthyAt + 30 * MINUTE;
    assert.deepEqual(
      fleet.round().moves.map((m) => m.key),
      ["default/other"],
    );
  });

  describe("the gate", () => {
    const badRevision = (instance: { name: string }, revision: number) =>
      revision === 2 ? { never: `Deployment ${instance.name}: 0/3 available` } : MINUTE;

    function fleetOf(onFailure: "Halt" | "Rollback"): RolloutFleet {
      const fleet = new RolloutFleet(
        policyOf({
          waves: [{ name: "canary", selector: { matchLabels: { canary: "true" } } }],
          maxUpdating: 5,
          gate: { readyWithin: "10m" },
          onFailure,
        }),
        badRevision,
      );
      fleet.add("canary-a", { labels: { canary: "true" } });
      fleet.add("canary-b", { labels: { canary: "true" } });
      for (let i = 0; i < 10; i++) fleet.add(`app-${i}`);
      fleet.revisions = [1, 2];
      return fleet;
    }

    it("halts when a wave is not healthy within readyWithin, names the instances, and nothing further moves", () => {
      const fleet = fleetOf("Halt");
      const started = fleet.now;
      assert.equal(fleet.round().moves.length, 2);
      fleet.reconcile();
      fleet.now = started + 10 * MINUTE - 1;
      const before = fleet.round();
      assert.equal(before.phase, "Progressing");
      assert.equal(before.nextCheckAt, started + 10 * MINUTE);
      fleet.now = started + 10 * MINUTE;
      const failed = fleet.round();
      assert.equal(failed.phase, "Halted");
      assert.deepEqual(failed.halt?.instances, [
        { key: "default/canary-a", reason: "not healthy at revision 2 within 10m: Deployment canary-a: 0/3 available" },
        { key: "default/canary-b", reason: "not healthy at revision 2 within 10m: Deployment canary-b: 0/3 available" },
      ]);
      assert.equal(failed.condition.reason, "Halted");
      assert.match(
        failed.condition.message,
        /^revision 2 failed the gate in wave 1\/2 \(canary\): default\/canary-a: not healthy .*; default\/canary-b: .*; nothing further moves until kro rollout resume or a newer revision$/,
      );
      for (let i = 0; i < 20; i++) {
        fleet.advance(MINUTE);
        const plan = fleet.round();
        assert.equal(plan.phase, "Halted");
        assert.deepEqual(plan.moves, []);
      }
      assert.deepEqual(movedTo(fleet, 2), ["default/canary-a", "default/canary-b"]);
      for (let i = 0; i < 10; i++) assert.equal(fleet.get(`default/app-${i}`).evaluated, 1, "untouched");
    });

    it("a resume restarts the deadline; a newer revision starts a new rollout from the first wave", () => {
      const fleet = fleetOf("Halt");
      fleet.round();
      fleet.reconcile();
      fleet.advance(10 * MINUTE);
      assert.equal(fleet.round().phase, "Halted");
      fleet.halt(undefined);
      fleet.control.resumedAt = fleet.now;
      fleet.advance(9 * MINUTE);
      assert.equal(fleet.round().phase, "Progressing", "the deadline counts from the resume");
      fleet.advance(MINUTE);
      assert.equal(fleet.round().phase, "Halted");

      fleet.revisions = [1, 2, 3];
      fleet.behaviour = () => MINUTE;
      const next = fleet.round();
      assert.equal(next.target, 3);
      assert.equal(next.wave?.name, "canary");
      assert.deepEqual(
        next.moves.map((m) => [m.key, m.from, m.to]),
        [
          ["default/canary-a", 2, 3],
          ["default/canary-b", 2, 3],
        ],
      );
      assert.equal(fleet.runUntil((plan) => plan.phase === "Complete").target, 3);
    });

    it("with onFailure Rollback returns the wave to the previous revision at once, and every instance is healthy there", () => {
      const fleet = fleetOf("Rollback");
      fleet.round();
      fleet.reconcile();
      fleet.advance(10 * MINUTE);
      const failed = fleet.round();
      assert.equal(failed.phase, "RolledBack");
      assert.deepEqual(failed.reject, { revision: 2, by: "gate", at: fleet.now });
      assert.deepEqual(
        failed.moves.map((m) => [m.key, m.from, m.to, m.why]),
        [
          ["default/canary-a", 2, 1, "rollback"],
          ["default/canary-b", 2, 1, "rollback"],
        ],
      );
      assert.match(failed.condition.message, /; its instances return to revision 1$/);
      fleet.reconcile();
      fleet.advance(MINUTE);
      const after = fleet.round();
      assert.equal(after.target, 1);
      assert.equal(after.phase, "Complete");
      assert.equal(after.condition.reason, "RolledBack");
      assert.equal(
        after.condition.message,
        "revision 2 was rolled back by its gate; 12/12 instances healthy at revision 1",
      );
      for (const instance of fleet.instances.values()) {
        assert.equal(instance.evaluated, 1);
        assert.ok(instance.healthyAt !== undefined);
      }
      assert.deepEqual(movedTo(fleet, 2), ["default/canary-a", "default/canary-b"], "only the first wave ever moved");
    });

    it("never rolls a rollback back: failing again at the revision it returned to only halts", () => {
      const fleet = fleetOf("Rollback");
      fleet.round();
      fleet.reconcile();
      fleet.advance(10 * MINUTE);
      assert.equal(fleet.round().phase, "RolledBack");
      fleet.behaviour = () => ({ never: "the cluster is out of capacity" });
      fleet.reconcile();
      fleet.advance(10 * MINUTE);
      const again = fleet.round();
      assert.equal(again.phase, "Halted");
      assert.equal(again.target, 1);
      assert.equal(again.reject, undefined);
      assert.deepEqual(again.moves, []);
    });
  });

  it("a rollback by command returns every instance at once, beyond the cap and while paused", () => {
    const fleet = new RolloutFleet(policyOf({ maxUpdating: 2 }));
    for (let i = 0; i < 6; i++) fleet.add(`app-${i}`);
    fleet.revisions = [1, 2];
    fleet.runUntil((plan) => plan.phase === "Complete");
    fleet.control.paused = true;
    fleet.control.rejected.push({ revision: 2, by: "command", at: fleet.now });
    const plan = fleet.round();
    assert.equal(plan.moves.length, 6);
    assert.ok(plan.moves.every((m) => m.from === 2 && m.to === 1 && m.why === "rollback"));
    fleet.reconcile();
    fleet.advance(MINUTE);
    assert.equal(
      fleet.round().condition.message,
      "revision 2 was rolled back by kro rollout undo; 6/6 instances healthy at revision 1",
    );
  });

  it("pauses: nothing moves in a wave while paused, and it goes on when resumed", () => {
    const fleet = new RolloutFleet(policyOf({ maxUpdating: 1 }));
    fleet.add("a");
    fleet.add("b");
    fleet.revisions = [1, 2];
    fleet.control.paused = true;
    const paused = fleet.round();
    assert.equal(paused.phase, "Paused");
    assert.deepEqual(paused.moves, []);
    fleet.control.paused = false;
    assert.equal(fleet.round().moves.length, 1);
  });

  describe("pins", () => {
    function pinned(pins: Record<string, string>, maxRevisionsBack = 1): RolloutFleet {
      const fleet = new RolloutFleet(policyOf({ maxUpdating: 10, pinning: { maxRevisionsBack } }));
      for (const name of ["a", "b", "c", "d"]) fleet.add(name, { revision: 2 });
      for (const [name, pin] of Object.entries(pins)) fleet.get(`default/${name}`).pin = pin;
      fleet.revisions = [1, 2, 3];
      return fleet;
    }

    it("holds a pinned instance at its revision while the others move, and an unpinned one rejoins", () => {
      const fleet = pinned({ a: "2" });
      fleet.runUntil((plan) => plan.phase === "Complete");
      assert.equal(fleet.get("default/a").evaluated, 2);
      for (const name of ["b", "c", "d"]) assert.equal(fleet.get(`default/${name}`).evaluated, 3);
      const done = fleet.round();
      assert.equal(done.condition.message, "3/4 instances healthy at revision 3 (1 pinned)");
      delete fleet.get("default/a").pin;
      const unpinned = fleet.round();
      assert.deepEqual(
        unpinned.moves.map((m) => [m.key, m.to, m.why]),
        [["default/a", 3, "wave"]],
      );
    });

    it("moves an instance to the revision it is pinned to", () => {
      const fleet = pinned({ a: "2" });
      fleet.get("default/a").assigned = 3;
      fleet.get("default/a").evaluated = 3;
      assert.deepEqual(
        fleet.round().moves.find((m) => m.key === "default/a"),
        { key: "default/a", from: 3, to: 2, why: "pin" },
      );
    });

    it("reports and ignores pins beyond the RGD author's bound, to a gone revision, or when pins are not allowed", () => {
      const fleet = pinned({ a: "1", b: "7", c: "latest" });
      fleet.revisions = [1, 2, 3];
      const plan = fleet.round();
      assert.deepEqual(plan.pinProblems, [
        { key: "default/a", reason: "pin to revision 1 refused: the RGD allows pins at most 1 below the target 3" },
        { key: "default/b", reason: "pinned revision 7 is gone (GraphRevisions kept: 3, 2, 1)" },
        { key: "default/c", reason: 'pin "latest" is not a revision number' },
      ]);
      assert.deepEqual(
        plan.moves.map((m) => m.key).sort(),
        ["default/a", "default/b", "default/c", "default/d"],
        "a refused pin follows the rollout",
      );
      assert.deepEqual(pinned({ a: "2" }, 0).round().pinProblems, [
        { key: "default/a", reason: "pin to revision 2 refused: the RGD allows no pins (spec.rollout.pinning)" },
      ]);
      const gone = pinned({ a: "2" });
      gone.revisions = [3];
      assert.deepEqual(gone.round().pinProblems, [
        { key: "default/a", reason: "pinned revision 2 is gone (GraphRevisions kept: 3)" },
      ]);
    });
  });

  it("sends an instance created mid-rollout, or left on a gone revision, to the target at once", () => {
    const fleet = new RolloutFleet(policyOf({ maxUpdating: 1 }));
    fleet.add("old", { revision: 1 });
    fleet.add("stale", { revision: 1 });
    fleet.add("current", { revision: 2 });
    fleet.revisions = [2, 3];
    fleet.create("new");
    const plan = fleet.round();
    assert.deepEqual(
      plan.moves.map((m) => [m.key, m.from, m.to, m.why]),
      [
        ["default/old", 1, 3, "adopt"],
        ["default/stale", 1, 3, "adopt"],
        ["default/new", undefined, 3, "adopt"],
      ],
    );
  });

  it("plans the same after a restart between writing moves: the count stays within the cap", () => {
    const fleet = new RolloutFleet(policyOf({ maxUpdating: 4 }));
    for (let i = 0; i < 12; i++) fleet.add(`app-${i}`);
    fleet.revisions = [1, 2];
    const plan = fleet.plan();
    assert.ok(plan !== undefined);
    assert.deepEqual(fleet.plan(), plan, "deterministic: nothing but its inputs decides");
    // The leader wrote two of its four moves and died; the next one plans from the objects.
    fleet.write(plan.moves.slice(0, 2));
    const resumed = fleet.round();
    assert.deepEqual(
      resumed.moves.map((m) => m.key),
      plan.moves.slice(2).map((m) => m.key),
      "the same instances, and no more",
    );
    assert.equal(fleet.updatingNow(), 4);
  });

  it("says so when every live revision was rolled back", () => {
    const fleet = new RolloutFleet(policyOf({}));
    fleet.add("a");
    fleet.control.rejected.push({ revision: 1, by: "command", at: fleet.now });
    const plan = planRollout({
      policy: fleet.policy,
      revisions: [1],
      instances: [...fleet.instances.values()],
      control: fleet.control,
      now: fleet.now,
    });
    assert.equal(plan?.phase, "NoTarget");
    assert.deepEqual(plan.moves, []);
    assert.equal(plan.condition.reason, "NoRevision");
  });
});
