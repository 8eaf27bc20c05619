import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EvaluationGuard, type EvaluationMarks, type GuardDecision } from "./evaluation-guard.js";

const ref = (key: string, generation = 1) => ({ key, uid: `uid-${key}`, generation });
const tick = () => new Promise((resolve) => setImmediate(resolve));
const done = (d: GuardDecision): void => { if (d.kind === "evaluate") d.done(); };

/** One instance as the API server keeps its marks across controller processes. */
class Instance {
  marks: EvaluationMarks = {};
  constructor(readonly r = ref("poison")) {}
  /** What ensureManaged does: mark it before the first evaluation of a generation not known good. */
  take(guard: EvaluationGuard, knownGood = false): void {
    if (!guard.needsMark(this.r, this.marks, knownGood)) return;
    this.marks = { ...this.marks, evaluating: this.r.generation };
    guard.marked(this.r);
  }
  /** What enterEvaluation does with a count: write it before the retry. */
  async enter(guard: EvaluationGuard, knownGood = false): Promise<GuardDecision> {
    const d = await guard.enter(this.r, this.marks, knownGood);
    if (d.kind !== "crashed" && d.crashes !== undefined) this.marks = { ...this.marks, crashes: { generation: this.r.generation, count: d.crashes } };
    return d;
  }
}

describe("EvaluationGuard", () => {
  it("marks a generation once, before its first evaluation; a known-good one never", async () => {
    const guard = new EvaluationGuard();
    const fresh = new Instance(ref("a"));
    assert.equal(guard.needsMark(fresh.r, fresh.marks, false), true);
    fresh.take(guard);
    done(await fresh.enter(guard));
    assert.equal(guard.needsMark(fresh.r, fresh.marks, false), false, "this process came through it");
    const next = { ...fresh.r, generation: 2 };
    assert.equal(guard.needsMark(next, fresh.marks, false), true, "a new generation is marked again");
    assert.equal(guard.needsMark(ref("b"), {}, true), false, "its status says an earlier process came through");
    assert.equal((await guard.enter(ref("b"), {}, true)).kind, "evaluate");
  });

  it("makes a generation marked by a process that died a suspect: backed off, its count written, retried alone", async () => {
    const poison = new Instance();
    const first = new EvaluationGuard();
    poison.take(first);
    assert.equal((await poison.enter(first)).kind, "evaluate"); // ... and the process dies in the evaluation
    let now = 1_000_000;
    const second = new EvaluationGuard({ now: () => now, retryBaseMs: 1_000 });
    poison.take(second);
    assert.equal(poison.marks.evaluating, 1, "the mark is not rewritten: the next process is not the one that marked it");
    const wait = await poison.enter(second);
    assert.deepEqual(wait, { kind: "wait", ms: 1_000, crashes: 1 });
    assert.deepEqual(poison.marks.crashes, { generation: 1, count: 1 }, "counted on the instance before the retry");
    now += 1_000;
    const other = new Instance(ref("fresh"));
    other.take(second);
    const fresh = await other.enter(second);
    let retried = false;
    const retry = poison.enter(second).then((d) => { retried = true; return d; });
    await tick();
    assert.equal(retried, false, "the suspect waits until the evaluations not known good are over");
    done(fresh);
    const alone = await retry;
    assert.equal(alone.kind, "evaluate");
    const late = new Instance(ref("late"));
    late.take(second);
    let lateIn = false;
    const lateEntry = late.enter(second).then((d) => { lateIn = true; return d; });
    await tick();
    assert.equal(lateIn, false, "no new unproven evaluation starts during the suspect's retry");
    done(alone);
    done(await lateEntry);
    assert.equal(lateIn, true);
    assert.equal((await poison.enter(second)).kind, "evaluate", "it came through: known good in this process");
  });

  it("stops evaluating a generation after maxCrashes crashes, until the spec changes", async () => {
    const poison = new Instance();
    let now = 0;
    const kinds: string[] = [];
    for (let process = 1; process <= 4; process++) {
      const guard = new EvaluationGuard({ now: () => now, maxCrashes: 3, retryBaseMs: 10 });
      poison.take(guard);
      now += 60_000;
      const d = await poison.enter(guard);
      kinds.push(d.kind === "crashed" ? `crashed ${d.crashes}` : d.kind);
      // an "evaluate" here is the process dying in it
    }
    assert.deepEqual(kinds, ["evaluate", "evaluate", "evaluate", "crashed 3"]);
    const again = new EvaluationGuard({ now: () => now, maxCrashes: 3, retryBaseMs: 10 });
    assert.deepEqual(await poison.enter(again), { kind: "crashed", crashes: 3 }, "a later process agrees: the count is not raised without a retry");
    const fixed = new Instance({ ...poison.r, generation: 2 });
    fixed.marks = poison.marks;
    fixed.take(again);
    assert.equal((await fixed.enter(again)).kind, "evaluate", "a new generation is evaluated again");
  });

  it("counts one crash per process, however many passes wait", async () => {
    const poison = new Instance();
    poison.take(new EvaluationGuard());
    const guard = new EvaluationGuard({ retryBaseMs: 60_000 });
    for (let pass = 0; pass < 5; pass++) {
      const d = await poison.enter(guard);
      assert.equal(d.kind === "wait" ? d.crashes : -1, 1);
    }
  });

  it("lets a retry that ended before evaluating go without vouching for the instance", async () => {
    const poison = new Instance();
    poison.take(new EvaluationGuard());
    const guard = new EvaluationGuard({ retryBaseMs: 0 });
    const d = await poison.enter(guard);
    assert.equal(d.kind, "evaluate");
    d.done(false);
    const again = await poison.enter(guard);
    assert.equal(again.kind === "evaluate" ? again.crashes : undefined, 1, "still a suspect's retry, alone");
    done(again);
  });
});
