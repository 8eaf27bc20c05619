/**
 * What the pools' worker threads (chart-worker.ts, evaluation-worker.ts) share: the first message
 * (the kernel's id of the thread and the work its start took, so the pool can read its CPU time
 * and charge no job for the start), and the synchronous ask of the main thread — post the call,
 * sleep on the shared flag until the main thread has answered, take the answer off this thread's
 * own port — so the runtime's synchronous ports (lookups) work unchanged in a worker.
 */
import { parentPort, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { osThreadId, threadCpuMs } from "../clock/index.js";

/** The first message of a worker thread (Linux only: elsewhere the pool has no CPU time to read). */
export interface ThreadReady {
  readonly type: "thread";
  readonly osThreadId: number;
  readonly cpuMs?: number;
}

export function announceThread(): void {
  const threadId = osThreadId();
  const cpuMs = threadCpuMs();
  if (threadId === undefined) return;
  parentPort?.postMessage({
    type: "thread",
    osThreadId: threadId,
    ...(cpuMs === undefined ? {} : { cpuMs }),
  } satisfies ThreadReady);
}

/** The numbering of one thread's calls to the main thread (the worker module runs once per thread). */
let lastCall = 0;

/** What the main thread posts back for a call: its number, and the answer or the error. */
export interface HostAnswer {
  readonly call: number;
  readonly answer?: unknown;
  readonly error?: string;
}

/**
 * Asks the main thread and waits for its answer; its error is thrown here. Each call has a number,
 * the flag holds the number of the last call answered, and an answer is taken only under its own
 * number: a wake-up meant for an earlier call (the main thread was preempted between setting the
 * flag and notifying) can neither end the wait early nor hand this call an earlier call's answer.
 */
export function askMainThread(flag: Int32Array, answers: MessagePort, call: object): unknown {
  const number = (lastCall = (lastCall % 0x7fffffff) + 1);
  parentPort?.postMessage({ ...call, call: number });
  for (let answered = Atomics.load(flag, 0); answered !== number; answered = Atomics.load(flag, 0))
    Atomics.wait(flag, 0, answered);
  for (let received = receiveMessageOnPort(answers); received !== undefined; received = receiveMessageOnPort(answers)) {
    const message = received.message as HostAnswer;
    if (message.call !== number) continue;
    if (message.error !== undefined) throw new Error(message.error);
    return message.answer;
  }
  throw new Error("internal: no answer from the controller's main thread");
}

/**
 * The main thread's side: answers call `number` of the thread behind `port` and `flag` with what
 * `answer` returns (or throws), then wakes the thread. An answer that cannot be posted (not
 * cloneable) is answered as an error: the thread is never left waiting.
 */
export function answerThread(flag: Int32Array, port: MessagePort, number: number, answer: () => unknown): void {
  let message: HostAnswer;
  try {
    message = { call: number, answer: answer() };
  } catch (error) {
    message = { call: number, error: error instanceof Error ? error.message : String(error) };
  }
  try {
    port.postMessage(message);
  } catch (error) {
    port.postMessage({
      call: number,
      error: `the answer could not be sent to the thread: ${error instanceof Error ? error.message : String(error)}`,
    } satisfies HostAnswer);
  }
  Atomics.store(flag, 0, number);
  Atomics.notify(flag, 0);
}
