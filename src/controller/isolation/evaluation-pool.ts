/**
 * A small pool of worker threads that evaluate instances whose passes are too long for the main
 * thread (evaluation-route.ts decides which). Each thread runs with V8 heap limits and each pass
 * with a deadline of the thread's own work, so a pass is measured by what it did, not by how busy
 * the machine was; a thread that works past it is terminated from outside (thread-time-limit.ts).
 * A pass that runs a thread out of memory, time or into a crash ends as an error for that one
 * instance; the thread is replaced on the next pass.
 *
 * Passes wait in one queue per flow (the instance's namespace) and the threads take them round
 * the flows in turn: a namespace with fifty expensive instances gets one turn in each round, like
 * a namespace with one.
 */
import { Worker, MessageChannel, type MessagePort } from "node:worker_threads";
import type { CompiledGraph } from "../../graph/index.js";
import type { InstanceEvaluation, KubeJson, ObservedLookup, RuntimeOptions } from "../../runtime/index.js";
import { threadCpuMs } from "../clock/index.js";
import { defaultRenderThreads } from "./chart-render-pool.js";
import {
  WORKER_GRAPHS,
  type EvaluationReply,
  type EvaluationRequest,
  type HostCall,
  type PlainRuntimeOptions,
} from "./evaluation-protocol.js";
import { armThreadTimeLimit } from "./thread-time-limit.js";
import { answerThread } from "./worker-thread.js";

export interface EvaluationPoolOptions {
  /** Worker threads (default: one per spare core, at least 2, at most 4). */
  readonly threads?: number;
  /** V8 old-generation heap of each thread, MiB (default 256). */
  readonly heapMb?: number;
  /** A thread's CPU time by its kernel id, ms (tests stand in for the kernel). */
  readonly threadCpu?: (osThreadId: number) => number | undefined;
}

export interface EvaluationJob {
  /** Whose turn it is: the instance's namespace. */
  readonly flow: string;
  readonly graph: CompiledGraph;
  readonly instance: KubeJson;
  readonly lookup: ObservedLookup;
  /** Functions in them are answered on the main thread; `passDeadline` is replaced by `deadlineMs`. */
  readonly options: RuntimeOptions;
  /** The pass's limit in its thread's work; absent, none. */
  readonly deadlineMs?: number;
}

export type PoolEvaluation =
  | { readonly ok: true; readonly evaluation: InstanceEvaluation; readonly workMs: number }
  | { readonly ok: false; readonly error: string; readonly limit?: "time" | "memory" | "crash" };

interface Waiting {
  readonly job: EvaluationJob;
  readonly resolve: (answer: PoolEvaluation) => void;
}

interface Running extends Waiting {
  readonly id: number;
  readonly timers: { current?: NodeJS.Timeout };
}

interface Slot {
  readonly worker: Worker;
  readonly flag: Int32Array;
  readonly answers: MessagePort;
  /** Graph numbers the thread holds, in the order it got them (it drops the first beyond WORKER_GRAPHS). */
  readonly graphs: Set<number>;
  osThreadId?: number;
  readyCpuMs?: number;
  running?: Running | undefined;
  dead: boolean;
}

const WORKER_URL = new URL("./evaluation-worker.js", import.meta.url);
const STOPPING: PoolEvaluation = { ok: false, error: "the controller is stopping" };

export class EvaluationPool {
  readonly threads: number;
  readonly heapMb: number;
  private readonly threadCpu: (osThreadId: number) => number | undefined;
  private readonly slots: Slot[] = [];
  /** Waiting passes by flow; a flow's turn comes round in the order flows first had work. */
  private readonly flows = new Map<string, Waiting[]>();
  private readonly graphIds = new WeakMap<CompiledGraph, number>();
  private nextGraphId = 1;
  private nextId = 1;
  private stopped = false;
  /** Passes ended by a limit of the pool, by kind (a metric and a test hook). */
  readonly stops = { time: 0, memory: 0, crash: 0 };

  constructor(options: EvaluationPoolOptions = {}) {
    this.threads = options.threads ?? defaultRenderThreads();
    this.heapMb = options.heapMb ?? 256;
    this.threadCpu = options.threadCpu ?? threadCpuMs;
  }

  evaluate(job: EvaluationJob): Promise<PoolEvaluation> {
    if (this.stopped) return Promise.resolve(STOPPING);
    return new Promise((resolve) => {
      const queue = this.flows.get(job.flow);
      if (queue === undefined) this.flows.set(job.flow, [{ job, resolve }]);
      else queue.push({ job, resolve });
      this.dispatch();
    });
  }

  /** Passes waiting for a thread. */
  get waiting(): number {
    let n = 0;
    for (const queue of this.flows.values()) n += queue.length;
    return n;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const queue of this.flows.values()) for (const { resolve } of queue) resolve(STOPPING);
    this.flows.clear();
    await Promise.all([...this.slots].map((s) => this.retire(s, STOPPING)));
  }

  /** The next pass, round the flows: the first flow's first pass, and that flow goes to the back. */
  private next(): Waiting | undefined {
    for (const [flow, queue] of this.flows) {
      this.flows.delete(flow);
      const head = queue.shift();
      if (queue.length > 0) this.flows.set(flow, queue);
      if (head !== undefined) return head;
    }
    return undefined;
  }

  private dispatch(): void {
    while (this.flows.size > 0) {
      let slot = this.slots.find((s) => !s.dead && s.running === undefined);
      if (slot === undefined && this.slots.filter((s) => !s.dead).length < this.threads) slot = this.spawn();
      if (slot === undefined) return;
      const next = this.next();
      if (next === undefined) return;
      this.start(slot, next);
    }
  }

  private spawn(): Slot {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const channel = new MessageChannel();
    const worker = new Worker(WORKER_URL, {
      workerData: { answers: channel.port2, flag },
      transferList: [channel.port2],
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
    worker.unref();
    const slot: Slot = { worker, flag, answers: channel.port1, graphs: new Set(), dead: false };
    worker.on("message", (reply: EvaluationReply) => {
      this.onReply(slot, reply);
    });
    worker.on("error", (error: Error & { code?: string }) => {
      const memory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
      void this.retire(slot, {
        ok: false,
        error: memory
          ? `evaluation exceeded the memory limit of ${this.heapMb} MiB (its worker thread was stopped)`
          : `evaluation crashed its worker thread: ${error.message}`,
        limit: memory ? "memory" : "crash",
      });
    });
    worker.on("exit", () => {
      void this.retire(slot, { ok: false, error: "the evaluation's worker thread exited", limit: "crash" });
    });
    this.slots.push(slot);
    return slot;
  }

  private graphIdOf(graph: CompiledGraph): number {
    let id = this.graphIds.get(graph);
    if (id === undefined) {
      id = this.nextGraphId++;
      this.graphIds.set(graph, id);
    }
    return id;
  }

  private start(slot: Slot, waiting: Waiting): void {
    const { job } = waiting;
    const graphId = this.graphIdOf(job.graph);
    const sendGraph = !slot.graphs.has(graphId);
    if (sendGraph) {
      if (slot.graphs.size >= WORKER_GRAPHS) slot.graphs.delete(slot.graphs.values().next().value as number);
      slot.graphs.add(graphId);
    }
    const id = this.nextId++;
    const timers: { current?: NodeJS.Timeout } = {};
    slot.running = { ...waiting, id, timers };
    const { metadata, ...rest } = job.instance as KubeJson & { metadata?: Record<string, unknown> };
    const { managedFields: _managed, ...meta } = metadata ?? {};
    const request: EvaluationRequest = {
      id,
      graphId,
      ...(sendGraph ? { graph: job.graph } : {}),
      instance: { ...rest, metadata: meta },
      options: plainOptions(job.options),
      ...(job.deadlineMs === undefined ? {} : { deadlineMs: job.deadlineMs }),
    };
    slot.worker.postMessage(request);
    if (job.deadlineMs !== undefined) {
      const deadlineMs = job.deadlineMs;
      armThreadTimeLimit(
        {
          deadlineMs,
          cpu: () => (slot.osThreadId === undefined ? undefined : this.threadCpu(slot.osThreadId)),
          readyCpu: () => slot.readyCpuMs,
          running: () => slot.running?.id === id,
          expire: () =>
            void this.retire(slot, {
              ok: false,
              error: `evaluation pass exceeded its time limit of ${deadlineMs} ms (its worker thread was stopped)`,
              limit: "time",
            }),
        },
        timers,
      );
    }
  }

  private onReply(slot: Slot, reply: EvaluationReply): void {
    if (reply.type === "thread") {
      slot.osThreadId = reply.osThreadId;
      if (reply.cpuMs !== undefined) slot.readyCpuMs = reply.cpuMs;
      return;
    }
    const running = slot.running;
    if (running === undefined || reply.id !== running.id) return;
    if (reply.type === "call") {
      answerThread(slot.flag, slot.answers, reply.call, () => answerCall(running.job, reply));
      return;
    }
    clearTimeout(running.timers.current);
    slot.running = undefined;
    running.resolve(
      reply.type === "done"
        ? { ok: true, evaluation: reply.evaluation, workMs: reply.workMs }
        : { ok: false, error: `evaluation failed: ${reply.error}` },
    );
    this.dispatch();
  }

  /** Ends a thread (terminating it if it still runs) and answers its pass with `answer`. */
  private async retire(slot: Slot, answer: PoolEvaluation): Promise<void> {
    const running = slot.running;
    slot.running = undefined;
    if (running !== undefined) {
      clearTimeout(running.timers.current);
      if (!answer.ok && answer.limit !== undefined) this.stops[answer.limit]++;
      running.resolve(answer);
    }
    if (!slot.dead) {
      slot.dead = true;
      this.slots.splice(this.slots.indexOf(slot), 1);
      slot.answers.close();
      await slot.worker.terminate();
    }
    if (!this.stopped) this.dispatch();
  }
}

function plainOptions(options: RuntimeOptions): PlainRuntimeOptions {
  return {
    ...(options.maxCollectionSize === undefined ? {} : { maxCollectionSize: options.maxCollectionSize }),
    ...(options.maxCollectionDimensions === undefined
      ? {}
      : { maxCollectionDimensions: options.maxCollectionDimensions }),
    ...(options.passCostLimit === undefined ? {} : { passCostLimit: options.passCostLimit }),
    ...(options.kroVersion === undefined ? {} : { kroVersion: options.kroVersion }),
    ...(options.assumeReady === undefined ? {} : { assumeReady: options.assumeReady }),
    childLabels: options.childLabels !== undefined,
    awaitsReady: options.awaitsReady !== undefined,
  };
}

/** A host call answered from the job's own lookup and options, as the pass would have read them inline. */
function answerCall(job: EvaluationJob, call: HostCall): unknown {
  switch (call.method) {
    case "get":
      return job.lookup.get(...call.args);
    case "list":
      return job.lookup.list(...call.args);
    case "childLabels":
      return job.options.childLabels?.(...call.args);
    case "awaitsReady":
      return job.options.awaitsReady?.(...call.args) ?? false;
  }
}
