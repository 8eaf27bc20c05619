/** The messages between the evaluation pool and its worker threads (structured-cloned). */
import type { CompiledGraph } from "../../graph/index.js";
import type { CollectionQuery, InstanceEvaluation, KubeJson, ObjectIdentity } from "../../runtime/index.js";
import type { ThreadReady } from "./worker-thread.js";

/** What a pass in a worker asks the main thread for, synchronously (its caches and served kinds). */
export type HostCall =
  | { readonly method: "get"; readonly args: readonly [identity: ObjectIdentity] }
  | { readonly method: "list"; readonly args: readonly [query: CollectionQuery] }
  | { readonly method: "childLabels"; readonly args: readonly [apiVersion: string, kind: string] }
  | { readonly method: "awaitsReady"; readonly args: readonly [apiVersion: string, kind: string] };

/** The runtime options that are data; the functions among them become host calls. */
export interface PlainRuntimeOptions {
  readonly maxCollectionSize?: number;
  readonly maxCollectionDimensions?: number;
  readonly passCostLimit?: number;
  readonly kroVersion?: string;
  readonly assumeReady?: boolean;
  readonly childLabels: boolean;
  readonly awaitsReady: boolean;
}

/**
 * Graphs a worker keeps, dropping the one it got first: the pool mirrors the same rule per thread,
 * so it knows when to send a graph again.
 */
export const WORKER_GRAPHS = 64;

export interface EvaluationRequest {
  readonly id: number;
  /** The graph, by the pool's number for it; `graph` is sent once per worker. */
  readonly graphId: number;
  readonly graph?: CompiledGraph;
  readonly instance: KubeJson;
  readonly options: PlainRuntimeOptions;
  /** The pass's deadline in this thread's work (ms); absent, none. */
  readonly deadlineMs?: number;
}

export type EvaluationReply =
  /** The thread is ready: its kernel id, and the work it took to start (not any pass's). */
  | ThreadReady
  /** `call`: the thread's number for it, which the answer carries back (worker-thread.ts). */
  | ({ readonly type: "call"; readonly id: number; readonly call: number } & HostCall)
  /** `workMs`: the thread's work for the pass, in its own clock. */
  | { readonly type: "done"; readonly id: number; readonly evaluation: InstanceEvaluation; readonly workMs: number }
  /** The runtime threw (a bug, never an instance's error): reported on that one instance. */
  | { readonly type: "failed"; readonly id: number; readonly error: string };
