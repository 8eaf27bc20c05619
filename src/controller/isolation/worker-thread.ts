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

/** Asks the main thread and waits for its answer; its error is thrown here. */
export function askMainThread(flag: Int32Array, answers: MessagePort, call: object): unknown {
  Atomics.store(flag, 0, 0);
  parentPort?.postMessage(call);
  Atomics.wait(flag, 0, 0);
  const message = receiveMessageOnPort(answers)?.message as { answer?: unknown; error?: string } | undefined;
  if (message === undefined) throw new Error("internal: no answer from the controller's main thread");
  if (message.error !== undefined) throw new Error(message.error);
  return message.answer;
}
