// The synchronous ask of the main thread from a worker (worker-thread.ts), with a real thread: a
// wake-up and an answer left over from an earlier call never end a later call's wait with the
// earlier answer, and an answer that cannot be cloned comes back as an error, not a hang.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import { answerThread } from "./worker-thread.js";

const MODULE = new URL("./worker-thread.js", import.meta.url).href;

/** A thread that asks the main thread `calls` times and posts what each ask returned (or threw). */
function asker(calls: number): { worker: Worker; flag: Int32Array; port: MessagePort; results: Promise<unknown[]> } {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const channel = new MessageChannel();
  const worker = new Worker(
    `
    const { parentPort, workerData } = require("node:worker_threads");
    import(${JSON.stringify(MODULE)}).then(({ askMainThread }) => {
      const results = [];
      for (let i = 1; i <= ${calls}; i++) {
        try { results.push(askMainThread(workerData.flag, workerData.answers, { type: "call", ask: i })); }
        catch (error) { results.push("error: " + error.message); }
      }
      parentPort.postMessage({ type: "results", results });
    });`,
    { eval: true, workerData: { flag, answers: channel.port2 }, transferList: [channel.port2] },
  );
  const results = new Promise<unknown[]>((resolve, reject) => {
    worker.on("message", (message: { type: string; results?: unknown[] }) => {
      if (message.type === "results") resolve(message.results ?? []);
    });
    worker.on("error", reject);
  });
  return { worker, flag, port: channel.port1, results };
}

describe("askMainThread", () => {
  it("takes only its own answer: a late wake-up and an earlier call's answer are passed over", async () => {
    const { worker, flag, port, results } = asker(2);
    let asked = 0;
    worker.on("message", (message: { type: string; ask?: number; call?: number }) => {
      if (message.type !== "call" || message.call === undefined) return;
      asked++;
      const number = message.call;
      if (asked === 1) {
        answerThread(flag, port, number, () => "first");
        return;
      }
      // The second call sees a copy of the first answer and the first call's wake-up again (as
      // when the main thread was preempted between setting the flag and notifying), then its own.
      port.postMessage({ call: number - 1, answer: "first, again" });
      Atomics.store(flag, 0, number - 1);
      Atomics.notify(flag, 0);
      setImmediate(() => {
        answerThread(flag, port, number, () => "second");
      });
    });
    assert.deepEqual(await results, ["first", "second"]);
    await worker.terminate();
  });

  it("an answer the main thread cannot send is an error for that call, and the next call is answered", async () => {
    const { worker, flag, port, results } = asker(2);
    let asked = 0;
    worker.on("message", (message: { type: string; call?: number }) => {
      if (message.type !== "call" || message.call === undefined) return;
      asked++;
      answerThread(flag, port, message.call, () => (asked === 1 ? { run: () => undefined } : "fine"));
    });
    const [first, second] = await results;
    assert.match(String(first), /^error: the answer could not be sent to the thread: .*could not be cloned/);
    assert.equal(second, "fine");
    await worker.terminate();
  });
});
