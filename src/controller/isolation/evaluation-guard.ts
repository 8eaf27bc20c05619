/**
 * The crash-loop guard: an instance whose evaluation kills the controller
 * process (a V8 out-of-memory of the main heap, an uncaught error, a native crash) must not kill it
 * again after every restart. The memory is the instance itself, so it costs no request of its own
 * for a new instance: before the first evaluation of a generation that is not known good, the
 * controller marks it in flight with its own process id (the annotation
 * `internal.kro.run/evaluating: <generation>/<process>`, written in the same patch as the finalizer
 * and labels, instance/record.ts); a status for that generation says it came through. A marked
 * generation without such a status, marked by another process, was being evaluated when that
 * process died: a suspect.
 *
 * A death is counted against the instance only when it is **explained**: the process that marked
 * it left a crash report (crash-reports.ts: Node writes one on a fatal error or an uncaught
 * exception). A kill leaves none — kill -9, a node drain, the kernel's OOM killer, a rollout — and
 * must never be blamed on whatever happened to be in flight; such a suspect is still retried alone
 * after the backoff, but its count does not grow. Each death is counted once (the count on the
 * instance names the process it counted last), whichever process reads it and however often.
 *
 * This room decides, the instance room reads and writes the marks (instance/evaluation-crash.ts).
 * A suspect is evaluated again only after a backoff (`retryBaseMs` × 2^(crashes−1) after this
 * process started), alone among the evaluations that are not known good — so a crash during its
 * retry is blamed on it and nobody else — with its count written on it first and its mark rewritten
 * with this process's id; after `maxCrashes` counted crashes it is not evaluated again for that
 * generation: the caller reports EvaluationCrashed until the spec changes.
 */

export interface EvaluationRef {
  readonly key: string;
  readonly uid: string;
  readonly generation: number;
}

/** Crashes counted for a generation; `last`: the process whose death was counted last. */
export interface CrashCount {
  readonly generation: number;
  readonly count: number;
  readonly last?: string;
}

/** What the instance says about its evaluations (its annotations). */
export interface EvaluationMarks {
  /** The generation marked in flight, and by which process (absent: a mark from before process ids). */
  readonly evaluating?: { readonly generation: number; readonly by?: string };
  readonly crashes?: CrashCount;
}

/** Why a process died, from the report it left (crash-reports.ts). */
export interface CrashEvidence {
  /** Node's own words, e.g. "Allocation failed - JavaScript heap out of memory". */
  readonly event: string;
}

export type GuardDecision =
  /**
   * Evaluate; call done() when the pass is over (thrown or not: the process survived it), or
   * done(false) when it ended before evaluating. `record`: a suspect's retry — write this count on
   * the instance before evaluating.
   */
  | { readonly kind: "evaluate"; readonly record?: CrashCount; done(evaluated?: boolean): void }
  /** A suspect waiting for its retry (`record`: a count to write on it meanwhile). */
  | { readonly kind: "wait"; readonly ms: number; readonly crashes: number; readonly record?: CrashCount }
  /** Crashed the controller `crashes` (≥ maxCrashes) times: not evaluated again for this generation. */
  | { readonly kind: "crashed"; readonly crashes: number; readonly cause?: string; readonly record?: CrashCount };

/** Test-only: which instance's evaluation ends the process, and how (instance/evaluation-crash.ts). */
export interface TestCrash {
  readonly name: string;
  readonly how: "crash" | "kill";
}

export interface EvaluationGuardOptions {
  readonly maxCrashes?: number;
  readonly retryBaseMs?: number;
  readonly now?: () => number;
  /** This process's id in the marks (crash-reports.ts names its report after it). */
  readonly processId?: string;
  /** Why the process with this id died, when it left a report; undefined: killed, or unknown. */
  readonly explain?: (processId: string) => CrashEvidence | undefined;
}

const identity = (e: EvaluationRef): string => `${e.uid}/${e.generation}`;
const NOTHING_TO_RECORD = { kind: "evaluate", done: () => undefined } as const;

export class EvaluationGuard {
  readonly maxCrashes: number;
  readonly processId: string;
  private readonly retryBaseMs: number;
  private readonly now: () => number;
  private readonly explain: (processId: string) => CrashEvidence | undefined;
  private readonly startedAt: number;
  /** uid/generation this process marked in flight itself. */
  private readonly mine = new Set<string>();
  /** Instance key → the uid/generation this process evaluated and survived. */
  private readonly good = new Map<string, string>();
  private readonly exclusive = new SoloLock();

  constructor(options: EvaluationGuardOptions = {}) {
    this.maxCrashes = Math.max(1, options.maxCrashes ?? 3);
    this.retryBaseMs = options.retryBaseMs ?? 2_000;
    this.now = options.now ?? Date.now;
    this.processId = options.processId ?? "unknown";
    this.explain = options.explain ?? (() => undefined);
    this.startedAt = this.now();
  }

  /** Whether this generation needs marking (again, by this process) before its evaluation (`knownGood`: its status says an earlier process came through). */
  needsMark(ref: EvaluationRef, marks: EvaluationMarks, knownGood: boolean): boolean {
    if (knownGood || this.good.get(ref.key) === identity(ref) || this.mine.has(identity(ref))) return false;
    return marks.evaluating?.generation !== ref.generation || marks.evaluating.by !== this.processId;
  }

  /** This process wrote the in-flight mark of `ref`. */
  marked(ref: EvaluationRef): void {
    this.mine.add(identity(ref));
  }

  /** Before the first evaluation of a pass. */
  async enter(ref: EvaluationRef, marks: EvaluationMarks, knownGood: boolean): Promise<GuardDecision> {
    const id = identity(ref);
    if (knownGood || this.good.get(ref.key) === id) return NOTHING_TO_RECORD;
    const mark = marks.evaluating;
    if (mark?.generation !== ref.generation || mark.by === this.processId || this.mine.has(id)) {
      // Fresh: ours (or unmarked). It waits while a suspect is retried alone.
      return this.entered(ref, await this.exclusive.shared());
    }
    // Marked by a process that never reported on it: it died during this evaluation.
    const { crashes, cause, record } = this.count(ref.generation, marks.crashes, mark.by);
    if (crashes >= this.maxCrashes)
      return {
        kind: "crashed",
        crashes,
        ...(cause === undefined ? {} : { cause }),
        ...(record === undefined ? {} : { record }),
      };
    const retryAt = this.startedAt + this.retryBaseMs * 2 ** Math.max(0, crashes - 1);
    if (this.now() < retryAt)
      return { kind: "wait", ms: retryAt - this.now(), crashes, ...(record === undefined ? {} : { record }) };
    const entered = this.entered(ref, await this.exclusive.solo());
    return { ...entered, ...(record === undefined ? {} : { record }) };
  }

  /** The instance is gone: nothing about it is kept. */
  forget(key: string): void {
    const id = this.good.get(key);
    this.good.delete(key);
    if (id !== undefined) this.mine.delete(id);
  }

  /** The count after the death of `by`: raised once, and only when that death is explained. */
  private count(
    generation: number,
    counted: CrashCount | undefined,
    by: string | undefined,
  ): { crashes: number; cause?: string; record?: CrashCount } {
    const before = counted?.generation === generation ? counted : undefined;
    const evidence = by === undefined ? undefined : this.explain(by);
    const crashes = before?.count ?? 0;
    if (evidence === undefined || before?.last === by)
      return { crashes, ...(evidence === undefined ? {} : { cause: evidence.event }) };
    const record = { generation, count: crashes + 1, ...(by === undefined ? {} : { last: by }) };
    return { crashes: record.count, cause: evidence.event, record };
  }

  private entered(ref: EvaluationRef, release: () => void): GuardDecision & { kind: "evaluate" } {
    let finished = false;
    return {
      kind: "evaluate",
      done: (evaluated = true) => {
        if (finished) return;
        finished = true;
        if (!evaluated) {
          release();
          return;
        }
        const id = identity(ref);
        const previous = this.good.get(ref.key);
        if (previous !== undefined && previous !== id) this.mine.delete(previous);
        this.good.set(ref.key, id);
        release();
      },
    };
  }
}

/**
 * A reader-writer lock without writer starvation: evaluations that are not known good share it;
 * a suspect's retry holds it alone, so a crash during the retry has one culprit.
 */
class SoloLock {
  private readers = 0;
  private writer = false;
  private readonly waiting: { readonly solo: boolean; readonly grant: () => void }[] = [];

  shared(): Promise<() => void> {
    return this.acquire(false);
  }

  solo(): Promise<() => void> {
    return this.acquire(true);
  }

  private acquire(solo: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push({
        solo,
        grant: () => {
          resolve(this.releaser(solo));
        },
      });
      this.pump();
    });
  }

  private releaser(solo: boolean): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (solo) this.writer = false;
      else this.readers--;
      this.pump();
    };
  }

  private pump(): void {
    while (this.waiting.length > 0 && !this.writer) {
      const next = this.waiting[0];
      if (next === undefined) return;
      if (next.solo && this.readers > 0) return;
      this.waiting.shift();
      if (next.solo) this.writer = true;
      else this.readers++;
      next.grant();
      if (next.solo) return;
    }
  }
}
