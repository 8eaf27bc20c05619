import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  EvaluationGuard,
  type EvaluationGuardOptions,
  type EvaluationMarks,
  type GuardDecision,
} from "./evaluation-guard.js";

const ref = (key: string, generation = 1) => ({ key, uid: `uid-${key}`, generation });
const tick = () => new Promise((resolve) => setImmediate(resolve));
const done = (d: GuardDecision): void => {
  if (d.kind === "evaluate") d.done();
};

/** Controller processes on one machine: which ones died leaving a report (crash-reports.ts). */
class Processes {
  private next = 0;
  readonly reported = new Set<string>();
  start(options: EvaluationGuardOptions = {}): EvaluationGuard {
    this.next++;
    return new EvaluationGuard({
      processId: `p${this.next}`,
      explain: (id) =>
        this.reported.has(id) ? { event: "Allocation failed - JavaScript heap out of memory" } : undefined,
      ...options,
    });
  }
  /** The process died of a fatal error: its report is there for the next one. */
  crashed(guard: EvaluationGuard): void {
    this.reported.add(guard.processId);
  }
}

/** One instance as the API server keeps its marks across controller processes. */
class Instance {
  marks: EvaluationMarks = {};
  constructor(readonly r = ref("poison")) {}
  /** What ensureManaged does: mark it before the first evaluation of a generation not known good. */
  take(guard: EvaluationGuard, knownGood = false): void {
    if (!guard.needsMark(this.r, this.marks, knownGood)) return;
    this.marks = { ...this.marks, evaluating: { generation: this.r.generation, by: guard.processId } };
    guard.marked(this.r);
  }
  /** What enterEvaluation does: write the count it is given, then (when evaluating) takeCharge marks it. */
  async enter(guard: EvaluationGuard, knownGood = false): Promise<GuardDecision> {
    const d = await guard.enter(this.r, this.marks, knownGood);
    if (d.record !== undefined) this.marks = { ...this.marks, crashes: d.record };
    if (d.kind === "evaluate") this.take(guard, knownGood);
    return d;
  }
}

describe("EvaluationGuard", () => {
  it("marks a generation once, with its process, before its first evaluation; a known-good one never", async () => {
    const guard = new Processes().start();
    const fresh = new Instance(ref("a"));
    assert.equal(guard.needsMark(fresh.r, fresh.marks, false), true);
    done(await fresh.enter(guard));
    assert.deepEqual(fresh.marks.evaluating, { generation: 1, by: "p1" });
    assert.equal(guard.needsMark(fresh.r, fresh.marks, false), false, "this process came through it");
    const next = { ...fresh.r, generation: 2 };
    assert.equal(guard.needsMark(next, fresh.marks, false), true, "a new generation is marked again");
    assert.equal(guard.needsMark(ref("b"), {}, true), false, "its status says an earlier process came through");
    assert.equal((await guard.enter(ref("b"), {}, true)).kind, "evaluate");
  });

  it("makes a generation marked by a process that crashed a suspect: backed off, its count written, retried alone and marked anew", async () => {
    const machine = new Processes();
    const poison = new Instance();
    const first = machine.start();
    assert.equal((await poison.enter(first)).kind, "evaluate"); // ... and the process dies of it
    machine.crashed(first);
    let now = 1_000_000;
    const second = machine.start({ now: () => now, retryBaseMs: 1_000 });
    const wait = await poison.enter(second);
    assert.deepEqual(wait, { kind: "wait", ms: 1_000, crashes: 1, record: { generation: 1, count: 1, last: "p1" } });
    assert.deepEqual(
      poison.marks.crashes,
      { generation: 1, count: 1, last: "p1" },
      "counted on the instance before the retry",
    );
    assert.deepEqual(
      poison.marks.evaluating,
      { generation: 1, by: "p1" },
      "not marked by a process that has not evaluated it",
    );
    now += 1_000;
    const other = new Instance(ref("fresh"));
    const fresh = await other.enter(second);
    let retried = false;
    const retry = poison.enter(second).then((d) => {
      retried = true;
      return d;
    });
    await tick();
    assert.equal(retried, false, "the suspect waits until the evaluations not known good are over");
    done(fresh);
    const alone = await retry;
    assert.equal(alone.kind, "evaluate");
    assert.equal(alone.record, undefined, "the count was written already");
    assert.deepEqual(
      poison.marks.evaluating,
      { generation: 1, by: "p2" },
      "the retry is marked by the process that runs it",
    );
    const late = new Instance(ref("late"));
    let lateIn = false;
    const lateEntry = late.enter(second).then((d) => {
      lateIn = true;
      return d;
    });
    await tick();
    assert.equal(lateIn, false, "no new unproven evaluation starts during the suspect's retry");
    done(alone);
    done(await lateEntry);
    assert.equal(lateIn, true);
    assert.equal((await poison.enter(second)).kind, "evaluate", "it came through: known good in this process");
  });

  it("stops evaluating a generation after maxCrashes crashes, until the spec changes, and says why", async () => {
    const machine = new Processes();
    const poison = new Instance();
    let now = 0;
    const kinds: string[] = [];
    for (let process = 1; process <= 4; process++) {
      const guard = machine.start({ now: () => now, maxCrashes: 3, retryBaseMs: 10 });
      now += 60_000;
      const d = await poison.enter(guard);
      kinds.push(d.kind === "crashed" ? `crashed ${d.crashes}: ${d.cause ?? "?"}` : d.kind);
      if (d.kind === "evaluate") machine.crashed(guard); // the process dies in it
    }
    assert.deepEqual(kinds, [
      "evaluate",
      "evaluate",
      "evaluate",
      "crashed 3: Allocation failed - JavaScript heap out of memory",
    ]);
    const again = machine.start({ now: () => now, maxCrashes: 3, retryBaseMs: 10 });
    const verdict = await poison.enter(again);
    assert.equal(
      verdict.kind === "crashed" ? verdict.crashes : -1,
      3,
      "a later process agrees: the count is not raised without a retry",
    );
    assert.deepEqual(poison.marks.crashes, { generation: 1, count: 3, last: "p3" });
    const fixed = new Instance({ ...poison.r, generation: 2 });
    fixed.marks = poison.marks;
    assert.equal((await fixed.enter(again)).kind, "evaluate", "a new generation is evaluated again");
  });

  it("never counts a kill: a process that left no report is not blamed, however often it happens", async () => {
    const machine = new Processes();
    const poison = new Instance();
    let now = 0;
    for (let process = 1; process <= 10; process++) {
      const guard = machine.start({ now: () => now, maxCrashes: 3, retryBaseMs: 10 });
      const waiting = await poison.enter(guard);
      if (process > 1)
        assert.deepEqual(
          waiting,
          { kind: "wait", ms: 10, crashes: 0 },
          "still a suspect: retried alone after the backoff, count unchanged",
        );
      now += 60_000;
      const d = await poison.enter(guard);
      assert.equal(d.kind, "evaluate", `kill ${process}`);
      // ... and it is killed during the evaluation: no report
    }
    assert.equal(poison.marks.crashes, undefined);
  });

  it("counts each crash once, whichever process reads it and however many die waiting", async () => {
    const machine = new Processes();
    const poison = new Instance();
    const first = machine.start();
    await poison.enter(first);
    machine.crashed(first);
    for (let process = 0; process < 4; process++) {
      // Each of these dies (crashing, even) before the suspect's retry: it never evaluated it.
      const waiting = machine.start({ retryBaseMs: 60_000 });
      for (let pass = 0; pass < 3; pass++) {
        const d = await poison.enter(waiting);
        assert.equal(d.kind === "wait" ? d.crashes : -1, 1);
      }
      machine.crashed(waiting);
    }
    assert.deepEqual(poison.marks.crashes, { generation: 1, count: 1, last: "p1" });
  });

  it("treats a mark without a process (an older controller's) as a kill", async () => {
    const poison = new Instance();
    poison.marks = { evaluating: { generation: 1 } };
    const guard = new Processes().start({ retryBaseMs: 0 });
    const d = await poison.enter(guard);
    assert.equal(d.kind, "evaluate");
    assert.equal(d.record, undefined);
    done(d);
  });

  it("lets a retry that ended before evaluating go without vouching for the instance", async () => {
    const machine = new Processes();
    const poison = new Instance();
    const first = machine.start();
    await poison.enter(first);
    machine.crashed(first);
    const guard = machine.start({ retryBaseMs: 0 });
    const d = await guard.enter(poison.r, poison.marks, false);
    assert.equal(d.kind, "evaluate");
    d.done(false);
    let retried = false;
    const other = new Instance(ref("other"));
    const blocker = await other.enter(guard);
    const again = guard.enter(poison.r, poison.marks, false).then((x) => {
      retried = true;
      return x;
    });
    await tick();
    assert.equal(retried, false, "still a suspect's retry, alone");
    done(blocker);
    done(await again);
  });
});
