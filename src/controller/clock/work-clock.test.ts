// The work clock in fake time (what deadlines see when the thread works, is starved, or /proc is
// missing), and its readings of the real kernel's thread CPU time.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { osThreadId, REREAD_MS, threadCpuMs, workClock } from "./work-clock.js";

/** A thread in fake time: the wall clock and its CPU time move only when the test says. */
function fakeThread(readable = true) {
  const state: { wall: number; cpu: number | undefined; reads: number } = {
    wall: 1000,
    cpu: readable ? 0 : undefined,
    reads: 0,
  };
  const clock = workClock({
    wall: () => state.wall,
    cpu: () => {
      state.reads++;
      return state.cpu;
    },
  });
  return { state, clock };
}

describe("work clock", () => {
  it("follows the thread's CPU time while it works", () => {
    const { state, clock } = fakeThread();
    const start = clock();
    for (let i = 0; i < 100; i++) {
      state.wall += 10;
      state.cpu = (state.cpu ?? 0) + 10;
      clock();
    }
    assert.equal(clock() - start, 1000);
  });

  it("does not count the time the thread was starved: a 2 s deadline survives 5 s of wall time with 300 ms of work", () => {
    const { state, clock } = fakeThread();
    const at = clock() + 2000;
    for (let i = 0; i < 50; i++) {
      state.wall += 100;
      state.cpu = (state.cpu ?? 0) + 6;
      assert.ok(clock() <= at, `not late after ${(i + 1) * 100} ms of wall time`);
    }
    // A thread that works the whole time is late on time.
    for (let i = 0; i < 200 && clock() <= at; i++) {
      state.wall += 10;
      state.cpu = (state.cpu ?? 0) + 10;
    }
    assert.ok(clock() > at);
    assert.ok(state.cpu !== undefined && state.cpu <= 2000 + REREAD_MS + 300, `late after ${state.cpu} ms of work`);
  });

  it("reads the kernel at most once per REREAD_MS of wall time", () => {
    const { state, clock } = fakeThread();
    clock();
    for (let i = 0; i < 1000; i++) clock();
    assert.equal(state.reads, 1);
    state.wall += REREAD_MS;
    clock();
    assert.equal(state.reads, 2);
  });

  it("between readings it never runs behind the thread's work (a busy loop is not given extra time)", () => {
    const { state, clock } = fakeThread();
    const start = clock();
    state.wall += REREAD_MS - 1;
    state.cpu = REREAD_MS - 1;
    assert.equal(clock() - start, REREAD_MS - 1);
  });

  it("never steps back: an estimate that counted idle time stands until the work catches up", () => {
    const { state, clock } = fakeThread();
    clock();
    // Idle: the estimate runs ahead of the thread's CPU time…
    state.wall += REREAD_MS - 1;
    const estimate = clock();
    // …and the next reading says less.
    state.wall += 1;
    state.cpu = (state.cpu ?? 0) + 1;
    assert.equal(clock(), estimate);
    state.wall += REREAD_MS;
    state.cpu += REREAD_MS;
    assert.ok(clock() > estimate);
  });

  it("is the wall clock where the thread's CPU time cannot be read", () => {
    const { state, clock } = fakeThread(false);
    const start = clock();
    state.wall += 5000;
    assert.equal(clock() - start, 5000);
  });

  it("reads this thread's CPU time from the kernel (Linux), by its own path and by its id", () => {
    if (process.platform !== "linux") {
      assert.equal(threadCpuMs(), undefined);
      return;
    }
    {
      const before = threadCpuMs();
      assert.ok(before !== undefined);
      // Spin for 150 ms of this process's CPU time, not of wall time: on a loaded machine 150 ms of
      // wall time may give this thread much less than the 50 ms asserted below.
      const start = process.cpuUsage();
      const cpuMs = () => {
        const used = process.cpuUsage(start);
        return (used.user + used.system) / 1000;
      };
      while (cpuMs() < 150);
      const after = threadCpuMs();
      assert.ok(after !== undefined && after - before >= 50, `${before} → ${after}`);
      const id = osThreadId();
      assert.ok(id !== undefined);
      const byId = threadCpuMs(id);
      assert.ok(byId !== undefined && Math.abs(byId - after) <= 20);
      assert.equal(threadCpuMs(2 ** 31 - 1), undefined, "no such thread");
    }
  });
});
