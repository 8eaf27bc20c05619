/** The messages between the chart-render pool and its worker threads (structured-cloned). */
import type { HelmContext } from "../../graph/index.js";
import type { HelmCapabilities, KubeJson, ParsedTemplate } from "../../runtime/index.js";
import type { ThreadReady } from "./worker-thread.js";

export interface WorkerRequest {
  readonly id: number;
  /** The chart, by the pool's number for it; `context` is sent once per worker. */
  readonly contextId: number;
  readonly context?: HelmContext;
  readonly instance: KubeJson;
  readonly capabilities?: HelmCapabilities;
  /** Whether `lookup` reads the cluster (else it returns {}, as offline). */
  readonly lookups: boolean;
  /** The render's own cooperative deadline; the pool terminates the thread a little later. */
  readonly deadlineMs: number;
}

export type WorkerReply =
  /** Sent once at start: the kernel's id of the thread, so the pool can read its CPU time. */
  /** The thread is ready: its kernel id, and the work it took to start (not any render's). */
  | ThreadReady
  /** `call`: the thread's number for it, which the answer carries back (worker-thread.ts). */
  | {
      readonly type: "lookup";
      readonly id: number;
      readonly call: number;
      readonly args: readonly [string, string, string, string];
    }
  | {
      readonly type: "done";
      readonly id: number;
      readonly ok: true;
      readonly outputs: readonly (readonly [string, string])[];
      /** Each template's output parsed (here, not on the controller's main thread). */
      readonly documents: readonly (readonly [string, ParsedTemplate])[];
    }
  /** `late`: the render failed past its deadline (a time limit, not the chart's own error). */
  | {
      readonly type: "done";
      readonly id: number;
      readonly ok: false;
      readonly error: string;
      readonly late?: boolean;
      /** The chart template whose render failed (ChartRenderAnswer.failedTemplate). */
      readonly failedTemplate?: string;
    };
