/**
 * The controller's chart renders: the runtime's ChartRenderPort over the worker pool, with the
 * answers kept by what a render reads (the chart, the instance's spec and identity, the cluster's
 * capabilities, the answers of its lookups). A pass that finds no answer starts the render and
 * sees the chart's children as pending; when the answer is in, the instance is queued again and
 * its next pass reads it. A chart's own error (a template error, a work budget) is an answer like
 * any other — the same input fails the same way, so it is not rendered again until the instance
 * changes. A render the pool stopped (time, memory, a crash) is kept as an error for a backoff
 * that doubles (30 s up to 10 min) and then tried again under the same limits: one hostile
 * instance costs a bounded slice of one worker thread, never the controller.
 */
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { ANNOTATIONS } from "../../api/index.js";
import {
  answerFingerprint,
  type ChartLookupCall,
  type ChartRenderAnswer,
  type ChartRenderPort,
  type ChartRenderRequest,
  type KubeJson,
} from "../../runtime/index.js";
import type { ChartRenderPool, PoolAnswer } from "./chart-render-pool.js";

interface Entry {
  readonly answer: ChartRenderAnswer;
  /** When a render the pool stopped may be tried again (ms, Date.now clock). */
  readonly retryAt?: number;
}

const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 600_000;

/** An answer's weight: its text, and about three times as much again for the parsed documents it carries. */
const outputSize = (answer: ChartRenderAnswer): number =>
  (answer.ok
    ? [...answer.outputs.values()].reduce((n, o) => n + o.length, 0) * (answer.documents === undefined ? 1 : 4)
    : answer.error.length) + 64;

export class ChartRenders {
  private readonly answers = new LRUCache<string, Entry>({
    maxSize: 128 * 1024 * 1024,
    sizeCalculation: (e) => outputSize(e.answer),
  });
  private readonly running = new Map<string, Set<() => void>>();
  /** Consecutive pool stops per render key: the backoff's exponent. */
  private readonly strikes = new Map<string, number>();
  private readonly ids = new WeakMap<object, number>();
  private nextId = 1;

  constructor(
    private readonly pool: ChartRenderPool,
    private readonly now: () => number = Date.now,
    private readonly onStopped?: (key: string, answer: PoolAnswer) => void,
  ) {}

  /** The port for one pass; `wake` runs when a render it started (or joined) has finished. */
  port(wake: () => void): ChartRenderPort {
    return (request) => this.answer(request, wake);
  }

  private answer(request: ChartRenderRequest, wake: () => void): ChartRenderAnswer | undefined {
    const key = this.keyOf(request);
    const entry = this.answers.get(key);
    if (
      entry !== undefined &&
      (entry.retryAt === undefined || this.now() < entry.retryAt) &&
      stillAnswered(entry.answer.calls, request.lookup)
    )
      return entry.answer;
    const waiting = this.running.get(key);
    if (waiting !== undefined) {
      waiting.add(wake);
      return undefined;
    }
    this.running.set(key, new Set([wake]));
    void this.pool
      .render({
        context: request.helm,
        instance: request.instance,
        ...(request.capabilities === undefined ? {} : { capabilities: request.capabilities }),
        ...(request.lookup === undefined ? {} : { lookup: request.lookup }),
      })
      .then((answer) => {
        if (answer.limit === undefined) {
          this.strikes.delete(key);
          this.answers.set(key, { answer });
        } else {
          const strikes = (this.strikes.get(key) ?? 0) + 1;
          this.strikes.set(key, strikes);
          if (this.strikes.size > 10_000) this.strikes.delete(this.strikes.keys().next().value as string);
          this.answers.set(key, {
            answer,
            retryAt: this.now() + Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (strikes - 1)),
          });
          this.onStopped?.(key, answer);
        }
        const wakes = this.running.get(key) ?? new Set();
        this.running.delete(key);
        for (const w of wakes) w();
      });
    return undefined;
  }

  private idOf(o: object): number {
    let id = this.ids.get(o);
    if (id === undefined) {
      id = this.nextId++;
      this.ids.set(o, id);
    }
    return id;
  }

  /**
   * What the render reads of the instance: its spec and identity (the seeded entropy reads uid,
   * generation, creation time and the recorded render time); all of its metadata when a subchart
   * condition reads `.parent`. Not the status, the resourceVersion or kro's own bookkeeping, so
   * the controller's writes to the instance do not render the chart again.
   */
  private keyOf(request: ChartRenderRequest): string {
    const metadata = (request.instance.metadata ?? {}) as Record<string, unknown>;
    const annotations = (metadata.annotations ?? {}) as Record<string, unknown>;
    const readsParent = request.helm.charts.some((c) => c.condition !== undefined);
    const { resourceVersion: _rv, managedFields: _mf, ...allMetadata } = metadata;
    const identity = readsParent
      ? allMetadata
      : {
          name: metadata.name,
          namespace: metadata.namespace,
          uid: metadata.uid,
          generation: metadata.generation,
          creationTimestamp: metadata.creationTimestamp,
          renderTime: annotations[ANNOTATIONS.renderTime],
        };
    const digest = createHash("sha256")
      .update(JSON.stringify([identity, request.instance.spec ?? null]))
      .digest("base64url");
    const capabilities = request.capabilities === undefined ? 0 : this.idOf(request.capabilities);
    return `${this.idOf(request.helm)}/${capabilities}/${request.lookup === undefined ? "-" : "l"}/${digest}`;
  }
}

/** Whether every lookup the render made still answers the same (asked again: the pass records its scopes). */
function stillAnswered(
  calls: readonly ChartLookupCall[],
  lookup: ((...args: [string, string, string, string]) => KubeJson) | undefined,
): boolean {
  if (calls.length === 0) return true;
  if (lookup === undefined) return false;
  try {
    return calls.every((call) => answerFingerprint(lookup(...call.args)) === call.fingerprint);
  } catch {
    return false;
  }
}
