/**
 * The entry of an evaluation worker thread (evaluation-pool.ts): evaluates one instance at a time
 * with the runtime's own code, under the heap limits the pool gave the thread and a deadline of
 * this thread's work. What the pass reads of the controller — its informer caches, its served
 * kinds, its shard labels — it asks the main thread synchronously, as the chart worker does:
 * post the call, sleep on the shared flag until the main thread has answered, take the answer off
 * its own port. The main thread never waits for the worker.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import type { CompiledGraph } from "../../graph/index.js";
import { evaluateInstance, type KubeJson, type ObservedLookup, type RuntimeOptions } from "../../runtime/index.js";
import { workClock } from "../clock/index.js";
import { announceThread, askMainThread } from "./worker-thread.js";
import { WORKER_GRAPHS, type EvaluationReply, type EvaluationRequest, type HostCall } from "./evaluation-protocol.js";

const { answers, flag } = workerData as { answers: MessagePort; flag: Int32Array };
/** Graphs by the pool's number, a few at a time: an RGD's new revision is a new number. */
const graphs = new Map<number, CompiledGraph>();
announceThread();

function askMain(id: number, call: HostCall): unknown {
  return askMainThread(flag, answers, { type: "call", id, ...call });
}

function optionsFor(request: EvaluationRequest, now: () => number): RuntimeOptions {
  const { childLabels, awaitsReady, ...plain } = request.options;
  const id = request.id;
  return {
    ...plain,
    ...(childLabels
      ? {
          childLabels: (apiVersion: string, kind: string) =>
            askMain(id, { method: "childLabels", args: [apiVersion, kind] }) as
              Readonly<Record<string, string>> | undefined,
        }
      : {}),
    ...(awaitsReady
      ? {
          awaitsReady: (apiVersion: string, kind: string) =>
            askMain(id, { method: "awaitsReady", args: [apiVersion, kind] }) as boolean,
        }
      : {}),
    ...(request.deadlineMs === undefined ? {} : { passDeadline: { now, budgetMs: request.deadlineMs } }),
  };
}

parentPort?.on("message", (request: EvaluationRequest) => {
  if (request.graph !== undefined) {
    if (graphs.size >= WORKER_GRAPHS) graphs.delete(graphs.keys().next().value as number);
    graphs.set(request.graphId, request.graph);
  }
  const graph = graphs.get(request.graphId);
  if (graph === undefined) {
    parentPort?.postMessage({
      type: "failed",
      id: request.id,
      error: "internal: the evaluation worker lost the graph",
    } satisfies EvaluationReply);
    return;
  }
  const lookup: ObservedLookup = {
    get: (identity) => askMain(request.id, { method: "get", args: [identity] }) as KubeJson | undefined,
    list: (query) => askMain(request.id, { method: "list", args: [query] }) as readonly KubeJson[],
  };
  // A clock per pass: its first reading is the kernel's, so the thread's idle time is not charged.
  const now = workClock();
  const started = now();
  let reply: EvaluationReply;
  try {
    const evaluation = evaluateInstance(graph, request.instance, lookup, optionsFor(request, now));
    reply = { type: "done", id: request.id, evaluation, workMs: now() - started };
  } catch (error) {
    reply = { type: "failed", id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
