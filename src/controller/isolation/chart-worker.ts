/**
 * The entry of a chart-render worker thread (chart-render-pool.ts): renders one chart at a time
 * with the runtime's own code, under the heap limits the pool gave the thread and the deadline of
 * the request. `lookup` asks the main thread synchronously: the worker posts the call, sleeps on
 * a shared flag (Atomics.wait) until the main thread has answered from its informer caches, then
 * takes the answer off its own port (receiveMessageOnPort) — so Helm's synchronous `lookup`
 * works unchanged, and the main thread never waits for the worker.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import type { HelmContext } from "../../graph/index.js";
import { parseChartOutput, renderChartOutputs, type HelmCapabilities, type KubeJson } from "../../runtime/index.js";
import { workClock } from "../clock/index.js";
import { announceThread, askMainThread } from "./worker-thread.js";
import type { WorkerReply, WorkerRequest } from "./chart-protocol.js";

type LookupCall = Extract<WorkerReply, { type: "lookup" }>;

const { answers, flag } = workerData as { answers: MessagePort; flag: Int32Array };
const contexts = new Map<number, HelmContext>();
announceThread();

function lookupOnMain(id: number, args: readonly [string, string, string, string]): KubeJson {
  return (
    (askMainThread(flag, answers, { type: "lookup", id, args } satisfies Omit<LookupCall, "call">) as
      KubeJson | undefined) ?? {}
  );
}

parentPort?.on("message", (request: WorkerRequest) => {
  if (request.context !== undefined) contexts.set(request.contextId, request.context);
  const context = contexts.get(request.contextId);
  if (context === undefined) {
    parentPort?.postMessage({
      type: "done",
      id: request.id,
      ok: false,
      error: "internal: the chart render worker lost the chart",
    } satisfies WorkerReply);
    return;
  }
  const capabilities: HelmCapabilities | undefined = request.capabilities;
  // Deadlines count this thread's work: a render starved by other threads and processes is not late.
  // A clock per render: its first reading is the kernel's, so the thread's idle time is not charged.
  const now = workClock();
  const started = now();
  const outcome = renderChartOutputs(context, request.instance, {
    ...(capabilities === undefined ? {} : { capabilities }),
    ...(request.lookups
      ? {
          lookup: (apiVersion: string, kind: string, namespace: string, name: string) =>
            lookupOnMain(request.id, [apiVersion, kind, namespace, name]),
        }
      : {}),
    deadline: { now, at: started + request.deadlineMs, budgetMs: request.deadlineMs },
  });
  const reply: WorkerReply = outcome.ok
    ? {
        type: "done",
        id: request.id,
        ok: true,
        outputs: [...outcome.value],
        // Parsing megabytes of YAML (a chart's CRDs) takes seconds: on this thread, under its limits.
        documents: [...outcome.value].map(([template, text]) => [template, parseChartOutput(template, text)]),
      }
    : {
        type: "done",
        id: request.id,
        ok: false,
        error: outcome.error ?? "the chart render is pending",
        late: now() > started + request.deadlineMs,
        ...(outcome.failedTemplate === undefined ? {} : { failedTemplate: outcome.failedTemplate }),
      };
  parentPort?.postMessage(reply);
});
