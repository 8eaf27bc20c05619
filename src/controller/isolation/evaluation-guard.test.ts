import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EvaluationGuard, type CrashRecordData, type CrashRecordStore } from "./evaluation-guard.js";

/** The record as the API server would keep it; `crash()` is a process dying: no stop(), the record stays as written. */
class MemoryRecord implements CrashRecordStore {
  data: CrashRecordData | undefined;
  writes = 0;
  gate: Promise<void> | undefined;
  async read(): Promise<CrashRecordData | undefined> {
    return Promise.resolve(this.data);
  }
  async write(data: CrashRecordData): Promise<boolean> {
    await this.gate;
    this.writes++;
    this.data = JSON.parse(JSON.stringify(data)) as CrashRecordData;
    return true;
  }
}

const ref = (key: string, generation = 1) => ({ key, uid: `uid-${key}`, generation });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("EvaluationGuard", () => {
  it("writes an evaluation that is not known good before it runs, and nothing for known-good ones", async () => {
    const record = new MemoryRecord();
    const guard = new EvaluationGuard(record, { clearDelayMs: 60_000 });
    await guard.start();
    const writesAtStart = record.writes;
    const d = await guard.enter(ref("a"), false);
    assert.equal(d.kind, "evaluate");
    assert.deepEqual(record.data?.inflight.map((e) => e.key), ["a"], "on the server before the evaluation starts");
    if (d.kind === "evaluate") d.done();
    const again = await guard.enter(ref("a"), false);
    if (again.kind === "evaluate") again.done();
    const byStatus = await guard.enter(ref("b"), true);
    if (byStatus.kind === "evaluate") byStatus.done();
    assert.equal(record.writes, writesAtStart + 1, "a generation this process survived, or one its status vouches for, costs no write");
    await guard.stop();
    assert.deepEqual(record.data?.inflight, [], "a clean stop leaves nothing in flight");
  });

  it("shares one write among evaluations that begin while a write is out (group commit)", async () => {
    const record = new MemoryRecord();
    const guard = new EvaluationGuard(record, { clearDelayMs: 60_000 });
    await guard.start();
    let open!: () => void;
    record.gate = new Promise((resolve) => { open = resolve; });
    const before = record.writes;
    const first = guard.enter(ref("a"), false);
    await tick();
    const rest = ["b", "c", "d", "e"].map((k) => guard.enter(ref(k), false));
    await tick();
    open();
    record.gate = undefined;
    await Promise.all([first, ...rest]);
    assert.equal(record.writes - before, 2, "one write for the first, one for the four that came while it was out");
    assert.deepEqual(record.data?.inflight.map((e) => e.key).sort(), ["a", "b", "c", "d", "e"]);
  });

  it("makes what was in flight at a crash a suspect: backed off, retried alone, cleared when it survives", async () => {
    const record = new MemoryRecord();
    let now = 1_000_000;
    const first = new EvaluationGuard(record, { now: () => now });
    await first.start();
    await first.enter(ref("poison"), false); // ... and the process dies in the evaluation
    const second = new EvaluationGuard(record, { now: () => now, retryBaseMs: 1_000 });
    const suspects = await second.start();
    assert.deepEqual(suspects.map((s) => [s.key, s.crashes]), [["poison", 1]]);
    const wait = await second.enter(ref("poison"), false);
    assert.equal(wait.kind, "wait");
    if (wait.kind === "wait") assert.equal(wait.ms, 1_000);
    now += 1_000;
    const fresh = await second.enter(ref("fresh"), false);
    const retry = second.enter(ref("poison"), false);
    await tick();
    let retried = false;
    void retry.then(() => { retried = true; });
    await tick();
    assert.equal(retried, false, "the suspect waits until the evaluations that are not known good are over");
    if (fresh.kind === "evaluate") fresh.done();
    const alone = await retry;
    assert.equal(alone.kind, "evaluate");
    assert.deepEqual(record.data?.inflight.map((e) => e.key), ["poison"], "alone in the record: a crash now has one culprit");
    const later = second.enter(ref("later"), false);
    let laterIn = false;
    void later.then(() => { laterIn = true; });
    await tick();
    assert.equal(laterIn, false, "no new unproven evaluation starts during the suspect's retry");
    if (alone.kind === "evaluate") alone.done();
    await later;
    await tick();
    assert.deepEqual(second.suspectList(), [], "a suspect that came through is cleared");
    assert.deepEqual(record.data?.suspects, []);
  });

  it("stops evaluating a generation after maxCrashes crashes, until the spec changes", async () => {
    const record = new MemoryRecord();
    let now = 0;
    for (let crash = 1; crash <= 3; crash++) {
      const guard = new EvaluationGuard(record, { now: () => now, maxCrashes: 3, retryBaseMs: 10 });
      const suspects = await guard.start();
      assert.equal(suspects.find((s) => s.key === "poison")?.crashes ?? 0, crash - 1);
      now += 1_000;
      const d = await guard.enter(ref("poison"), false);
      assert.equal(d.kind, "evaluate", `crash ${crash}: still tried`);
      // the process dies here
    }
    const last = new EvaluationGuard(record, { now: () => now, maxCrashes: 3, retryBaseMs: 10 });
    await last.start();
    now += 60_000;
    const d = await last.enter(ref("poison"), false);
    assert.equal(d.kind, "crashed");
    if (d.kind === "crashed") assert.equal(d.suspect.crashes, 3);
    const changed = await last.enter(ref("poison", 2), false);
    assert.equal(changed.kind, "evaluate", "a new generation is evaluated again");
    assert.deepEqual(last.suspectList(), []);
  });

  it("does not count a clean stop as a crash, and keeps counting across one", async () => {
    const record = new MemoryRecord();
    const a = new EvaluationGuard(record);
    await a.start();
    await a.enter(ref("x"), false); // crash
    const b = new EvaluationGuard(record, { retryBaseMs: 60_000 });
    await b.start();
    await b.stop(); // clean, before the suspect's retry
    const c = new EvaluationGuard(record, { retryBaseMs: 60_000 });
    const suspects = await c.start();
    assert.deepEqual(suspects.map((s) => [s.key, s.crashes]), [["x", 1]]);
  });

  it("stands down when the record may not be kept, and evaluates everything", async () => {
    const refused: CrashRecordStore = { read: () => Promise.resolve(undefined), write: () => Promise.resolve(false) };
    let stoodDown = 0;
    const guard = new EvaluationGuard(refused, { onStandDown: () => { stoodDown++; } });
    await guard.start();
    assert.equal((await guard.enter(ref("a"), false)).kind, "evaluate");
    assert.equal(stoodDown, 1);
  });

  it("fails the evaluation (not the process) when the record cannot be written, and tries the start again", async () => {
    let fail = true;
    const record = new MemoryRecord();
    const flaky: CrashRecordStore = { read: () => (fail ? Promise.reject(new Error("connection refused")) : record.read()), write: (d) => record.write(d) };
    const guard = new EvaluationGuard(flaky);
    await assert.rejects(guard.start(), /connection refused/);
    await assert.rejects(guard.enter(ref("a"), false), /connection refused/);
    fail = false;
    assert.equal((await guard.enter(ref("a"), false)).kind, "evaluate");
  });
});
