import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pausePatch, resumePatches, RolloutRefusal, undoPatch, type RgdView } from "./rollout-edits.js";
import { rolloutReport, type RgdWithConditions } from "../../inspect/index.js";

const NOW = new Date("2026-12-07T00:00:00Z");
const PAUSED = "kro.run/rollout-paused";

const rgd = (extra: { annotations?: Record<string, string>; rollout?: RgdView["status"] }): RgdView => ({
  metadata: { name: "webapp", resourceVersion: "42", ...(extra.annotations ? { annotations: extra.annotations } : {}) },
  spec: { rollout: { waves: [{ name: "canary", percent: 10 }] } },
  ...(extra.rollout === undefined ? {} : { status: extra.rollout }),
});

describe("kro rollout edits", () => {
  it("pause sets the annotation; an RGD without a policy is refused with why", () => {
    assert.deepEqual(pausePatch(rgd({})), { metadata: { annotations: { [PAUSED]: "true" } } });
    assert.throws(
      () => pausePatch({ metadata: { name: "plain" } }),
      (e: unknown) => {
        assert.ok(e instanceof RolloutRefusal);
        assert.match(e.message, /^plain has no spec\.rollout: every instance takes a new revision at once/);
        return true;
      },
    );
  });

  it("resume lifts the pause, clears a halt preconditioned on what it read, and lifts rejections only with --retry", () => {
    const halted = rgd({
      annotations: { [PAUSED]: "true" },
      rollout: { rollout: { target: 7, halted: { revision: 7 }, rejected: [{ revision: 6, by: "gate" }] } },
    });
    assert.deepEqual(resumePatches(halted, NOW, false), {
      annotationPatch: { metadata: { annotations: { [PAUSED]: null } } },
      statusPatch: {
        metadata: { resourceVersion: "42" },
        status: { rollout: { halted: null, resumedAt: "2026-12-07T00:00:00.000Z" } },
      },
    });
    assert.deepEqual(resumePatches(halted, NOW, true).statusPatch, {
      metadata: { resourceVersion: "42" },
      status: { rollout: { halted: null, resumedAt: "2026-12-07T00:00:00.000Z", rejected: null } },
    });
    assert.deepEqual(resumePatches(rgd({ annotations: { [PAUSED]: "true" } }), NOW, false), {
      annotationPatch: { metadata: { annotations: { [PAUSED]: null } } },
    });
    assert.throws(() => resumePatches(rgd({ rollout: { rollout: { target: 7 } } }), NOW, false), /nothing to resume/);
  });

  it("undo rejects the target, or every revision above --to-revision, keeping other verdicts", () => {
    const running = rgd({ rollout: { rollout: { target: 9, rejected: [{ revision: 5, by: "gate", at: "t" }] } } });
    const at = "2026-12-07T00:00:00.000Z";
    assert.deepEqual(undoPatch(running, NOW), {
      metadata: { resourceVersion: "42" },
      status: {
        rollout: {
          rejected: [
            { revision: 5, by: "gate", at: "t" },
            { revision: 9, by: "command", at },
          ],
        },
      },
    });
    assert.deepEqual((undoPatch(running, NOW, 6).status as { rollout: { rejected: unknown[] } }).rollout.rejected, [
      { revision: 5, by: "gate", at: "t" },
      ...[7, 8, 9].map((revision) => ({ revision, by: "command", at })),
    ]);
    assert.throws(() => undoPatch(running, NOW, 9), /--to-revision 9 is not below the target revision 9/);
    assert.throws(() => undoPatch(rgd({}), NOW), /reports no rollout target yet/);
  });
});

describe("kro rollout status", () => {
  it("says where the rollout is, what stopped it and why", () => {
    const view: RgdWithConditions = {
      metadata: { name: "webapp", annotations: { [PAUSED]: "true" } },
      spec: { rollout: {} },
      status: {
        rollout: {
          target: 7,
          wave: { index: 1, name: "staging", of: 3 },
          updated: 12,
          total: 100,
          halted: {
            revision: 7,
            wave: 1,
            at: "T",
            instances: [{ namespace: "team-a", name: "shop", reason: "Ready=False" }],
          },
          rejected: [{ revision: 6, by: "command", at: "T0" }],
          pinProblems: [{ namespace: "team-b", name: "old", reason: "pinned revision 2 is gone" }],
        },
        conditions: [{ type: "Propagated", status: "False", reason: "Halted", message: "1 instance failed the gate" }],
      },
    };
    assert.equal(
      rolloutReport(view),
      [
        'webapp: revision 7, wave 2/3 "staging", 12/100 instances healthy there',
        "  paused: nothing moves until `kro rollout resume`",
        "  halted: revision 7 failed its gate in wave 2 at T",
        "    team-a/shop: Ready=False",
        "  rejected: revision 6 (by command, T0)",
        "  pin not honoured: team-b/old: pinned revision 2 is gone",
        "  Propagated=False Halted: 1 instance failed the gate",
        "",
      ].join("\n"),
    );
    assert.equal(
      rolloutReport({ metadata: { name: "plain" } }),
      "plain: no spec.rollout — every instance takes a new revision at once (as in kro)\n",
    );
  });
});
