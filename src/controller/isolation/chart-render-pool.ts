/**
 * A small pool of worker threads that render charts (spec.helm) for the controller, so no chart
 * can take the controller's memory or event loop: each thread runs with V8 heap limits
 * (`resourceLimits`) and every render with a deadline of the thread's own work (CPU time, see
 * clock/work-clock.ts) — cooperative inside the thread (the template engine checks it every 256
 * steps and before every charged function), and enforced from outside (the thread is terminated
 * once it has worked a little past it, thread-time-limit.ts). A render that runs a thread out of
 * memory, past its time or into a crash ends as an error for that one instance; the thread is
 * replaced on the next render, and the main thread — /healthz, leader renewals, every other
 * instance — never waits for any of it.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import type { HelmContext } from "../../graph/index.js";
import {
  answerFingerprint,
  type ChartLookupCall,
  type ChartRenderAnswer,
  type HelmCapabilities,
  type HelmRenderEnv,
  type KubeJson,
} from "../../runtime/index.js";
import { threadCpuMs } from "../clock/index.js";
import type { WorkerReply, WorkerRequest } from "./chart-protocol.js";
import { armThreadTimeLimit } from "./thread-time-limit.js";
import { answerThread } from "./worker-thread.js";

export interface ChartRenderPoolOptions {
  /** Worker threads (default: one per spare core, at least 2, at most 4). */
  readonly threads?: number;
  /** V8 old-generation heap of each thread, MiB (default 256). */
  readonly heapMb?: number;
  /** Work (CPU time) one render may take, ms (default 10 000: a few RSA-4096 keys). */
  readonly timeoutMs?: number;
  /** A thread's CPU time by its kernel id, ms (tests stand in for the kernel). */
  readonly threadCpu?: (osThreadId: number) => number | undefined;
}

export interface ChartRenderJob {
  readonly context: HelmContext;
  readonly instance: KubeJson;
  readonly capabilities?: HelmCapabilities;
  readonly lookup?: HelmRenderEnv["lookup"];
}

/** An answer, and whether a limit of the pool (time, memory, a crash) rather than the chart ended it. */
export type PoolAnswer = ChartRenderAnswer & { readonly limit?: "time" | "memory" | "crash" };

interface Running {
  readonly id: number;
  readonly job: ChartRenderJob;
  readonly calls: ChartLookupCall[];
  readonly resolve: (answer: PoolAnswer) => void;
  readonly timers: { current?: NodeJS.Timeout };
}

interface Slot {
  readonly worker: Worker;
  readonly flag: Int32Array;
  readonly answers: MessagePort;
  readonly contexts: Set<number>;
  /** The kernel's id of the thread, once it said (Linux), to read its CPU time. */
  osThreadId?: number;
  /** The thread's work when it became ready: its start-up, which no render is charged for. */
  readyCpuMs?: number;
  running?: Running | undefined;
  dead: boolean;
}

const WORKER_URL = new URL("./chart-worker.js", import.meta.url);

/** One per spare core, at least two (one hostile render at its time limit must not hold every benign one behind it), at most four. */
export function defaultRenderThreads(): number {
  return Math.min(4, Math.max(2, availableParallelism() - 1));
}

export class ChartRenderPool {
  readonly threads: number;
  readonly heapMb: number;
  readonly timeoutMs: number;
  private readonly threadCpu: (osThreadId: number) => number | undefined;
  private readonly slots: Slot[] = [];
  private readonly queue: { job: ChartRenderJob; resolve: (answer: PoolAnswer) => void }[] = [];
  private readonly contextIds = new WeakMap<HelmContext, number>();
  private nextContextId = 1;
  private nextId = 1;
  private stopped = false;
  /** Renders ended by a limit of the pool, by kind (a metric and a test hook). */
  readonly stops = { time: 0, memory: 0, crash: 0 };

  constructor(options: ChartRenderPoolOptions = {}) {
    this.threads = options.threads ?? defaultRenderThreads();
    this.heapMb = options.heapMb ?? 256;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.threadCpu = options.threadCpu ?? threadCpuMs;
  }

  render(job: ChartRenderJob): Promise<PoolAnswer> {
    if (this.stopped) return Promise.resolve({ ok: false, error: "the controller is stopping", calls: [] });
    return new Promise((resolve) => {
      this.queue.push({ job, resolve });
      this.dispatch();
    });
  }

  /** Thread ids of the live workers (tests use them to see a terminated thread replaced). */
  get workerThreadIds(): number[] {
    return this.slots.filter((s) => !s.dead).map((s) => s.worker.threadId);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const { resolve } of this.queue.splice(0))
      resolve({ ok: false, error: "the controller is stopping", calls: [] });
    // A copy: retire() removes its slot from this.slots, and map() over the live array would skip
    // every other slot, leaving its thread and MessagePort alive (the process could never exit).
    await Promise.all(
      [...this.slots].map((s) => this.retire(s, { ok: false, error: "the controller is stopping", calls: [] })),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.dead && s.running === undefined);
      if (slot === undefined && this.slots.filter((s) => !s.dead).length < this.threads) slot = this.spawn();
      if (slot === undefined) return;
      const next = this.queue.shift();
      if (next !== undefined) this.start(slot, next.job, next.resolve);
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
    const slot: Slot = { worker, flag, answers: channel.port1, contexts: new Set(), dead: false };
    worker.on("message", (reply: WorkerReply) => {
      this.onReply(slot, reply);
    });
    worker.on("error", (error: Error & { code?: string }) => {
      const memory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
      void this.retire(
        slot,
        memory
          ? {
              ok: false,
              error: `the chart render exceeded the memory limit of ${this.heapMb} MiB (its worker thread was stopped)`,
              calls: [],
              limit: "memory",
            }
          : {
              ok: false,
              error: `the chart render crashed its worker thread: ${error.message}`,
              calls: [],
              limit: "crash",
            },
      );
    });
    worker.on(
      "exit",
      () =>
        void this.retire(slot, {
          ok: false,
          error: "the chart render's worker thread exited",
          calls: [],
          limit: "crash",
        }),
    );
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: ChartRenderJob, resolve: (answer: PoolAnswer) => void): void {
    let contextId = this.contextIds.get(job.context);
    if (contextId === undefined) {
      contextId = this.nextContextId++;
      this.contextIds.set(job.context, contextId);
    }
    const id = this.nextId++;
    const timers: { current?: NodeJS.Timeout } = {};
    slot.running = { id, job, calls: [], resolve, timers };
    this.armTimeLimit(slot, id, timers);
    const { metadata, ...rest } = job.instance as KubeJson & { metadata?: Record<string, unknown> };
    const { managedFields: _managed, ...meta } = metadata ?? {};
    const request: WorkerRequest = {
      id,
      contextId,
      ...(slot.contexts.has(contextId) ? {} : { context: job.context }),
      instance: { ...rest, metadata: meta },
      ...(job.capabilities === undefined ? {} : { capabilities: job.capabilities }),
      lookups: job.lookup !== undefined,
      deadlineMs: this.timeoutMs,
    };
    slot.contexts.add(contextId);
    slot.worker.postMessage(request);
  }

  /** The outer time limit of the render `id` on `slot` (thread-time-limit.ts). */
  private armTimeLimit(slot: Slot, id: number, timers: { current?: NodeJS.Timeout }): void {
    armThreadTimeLimit(
      {
        deadlineMs: this.timeoutMs,
        cpu: () => (slot.osThreadId === undefined ? undefined : this.threadCpu(slot.osThreadId)),
        readyCpu: () => slot.readyCpuMs,
        running: () => slot.running?.id === id,
        expire: () =>
          void this.retire(slot, {
            ok: false,
            error: `the chart render exceeded its time limit of ${this.timeoutMs} ms (its worker thread was stopped)`,
            calls: [],
            limit: "time",
          }),
      },
      timers,
    );
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    if (reply.type === "thread") {
      slot.osThreadId = reply.osThreadId;
      if (reply.cpuMs !== undefined) slot.readyCpuMs = reply.cpuMs;
      return;
    }
    const running = slot.running;
    if (running === undefined || reply.id !== running.id) return;
    if (reply.type === "lookup") {
      answerThread(slot.flag, slot.answers, reply.call, () => {
        const answer = running.job.lookup?.(...reply.args) ?? {};
        running.calls.push({ args: reply.args, fingerprint: answerFingerprint(answer) });
        return answer;
      });
      return;
    }
    clearTimeout(running.timers.current);
    slot.running = undefined;
    if (!reply.ok && reply.late === true) this.stops.time++;
    running.resolve(
      reply.ok
        ? { ok: true, outputs: new Map(reply.outputs), documents: new Map(reply.documents), calls: running.calls }
        : {
            ok: false,
            error: reply.error,
            calls: running.calls,
            ...(reply.late === true ? { limit: "time" as const } : {}),
            ...(reply.failedTemplate === undefined ? {} : { failedTemplate: reply.failedTemplate }),
          },
    );
    this.dispatch();
  }

  /** Ends a thread (terminating it if it still runs) and answers its render with `answer`. */
  private async retire(slot: Slot, answer: PoolAnswer): Promise<void> {
    const running = slot.running;
    slot.running = undefined;
    if (running !== undefined) {
      clearTimeout(running.timers.current);
      if (answer.limit !== undefined) this.stops[answer.limit]++;
      running.resolve({ ...answer, calls: running.calls });
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
