/**
 * The crash-loop guard (issue #26 point 2): an instance whose evaluation kills the controller
 * process (a V8 out-of-memory of the main heap, a native crash, a stall the kubelet ends) must not
 * kill it again after every restart. The memory is the instance itself, so it costs no request of
 * its own for a new instance: before the first evaluation of a generation that is not known good,
 * the controller marks it in flight (the annotation `internal.kro.run/evaluating: <generation>`,
 * written in the same patch as the finalizer and labels, instance/record.ts); a status for that
 * generation says it came through. A marked generation without such a status, which this process
 * did not mark, was being evaluated when a process died: a suspect.
 *
 * This room decides, the instance room reads and writes the marks (instance/evaluation-crash.ts).
 * A suspect is evaluated again only after a backoff (`retryBaseMs` × 2^(crashes−1) after this
 * process started), alone among the evaluations that are not known good — so a crash during its
 * retry is blamed on it and nobody else — with its crash count written on it first; after
 * `maxCrashes` crashes it is not evaluated again for that generation: the caller reports
 * EvaluationCrashed until the spec changes.
 */

export interface EvaluationRef {
  readonly key: string;
  readonly uid: string;
  readonly generation: number;
}

/** What the instance says about its evaluations (its annotations). */
export interface EvaluationMarks {
  /** The generation marked in flight. */
  readonly evaluating?: number;
  /** Crashes counted (and written) for a generation before its retries. */
  readonly crashes?: { readonly generation: number; readonly count: number };
}

export type GuardDecision =
  /**
   * Evaluate; call done() when the pass is over (thrown or not: the process survived it), or
   * done(false) when it ended before evaluating. `crashes`: a suspect's retry — write this count on
   * the instance before evaluating.
   */
  | { readonly kind: "evaluate"; readonly crashes?: number; done(evaluated?: boolean): void }
  /** A suspect waiting for its retry (write `crashes` on it meanwhile). */
  | { readonly kind: "wait"; readonly ms: number; readonly crashes: number }
  /** Crashed the controller `crashes` (≥ maxCrashes) times: not evaluated again for this generation. */
  | { readonly kind: "crashed"; readonly crashes: number };

export interface EvaluationGuardOptions {
  readonly maxCrashes?: number;
  readonly retryBaseMs?: number;
  readonly now?: () => number;
}

const identity = (e: EvaluationRef): string => `${e.uid}/${e.generation}`;
const NOTHING_TO_RECORD = { kind: "evaluate", done: () => undefined } as const;

export class EvaluationGuard {
  readonly maxCrashes: number;
  private readonly retryBaseMs: number;
  private readonly now: () => number;
  private readonly startedAt: number;
  /** uid/generation this process marked in flight itself. */
  private readonly mine = new Set<string>();
  /** Instance key → the uid/generation this process evaluated and survived. */
  private readonly good = new Map<string, string>();
  /** uid/generation of suspects → crashes counted by this process (one per process, however many passes). */
  private readonly counted = new Map<string, number>();
  private readonly exclusive = new SoloLock();

  constructor(options: EvaluationGuardOptions = {}) {
    this.maxCrashes = Math.max(1, options.maxCrashes ?? 3);
    this.retryBaseMs = options.retryBaseMs ?? 2_000;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  /** Whether this generation needs marking before its evaluation (`knownGood`: its status says an earlier process came through). */
  needsMark(ref: EvaluationRef, marks: EvaluationMarks, knownGood: boolean): boolean {
    return !knownGood && this.good.get(ref.key) !== identity(ref) && marks.evaluating !== ref.generation;
  }

  /** This process wrote the in-flight mark of `ref`. */
  marked(ref: EvaluationRef): void {
    this.mine.add(identity(ref));
  }

  /** Before the first evaluation of a pass. */
  async enter(ref: EvaluationRef, marks: EvaluationMarks, knownGood: boolean): Promise<GuardDecision> {
    const id = identity(ref);
    if (knownGood || this.good.get(ref.key) === id) return NOTHING_TO_RECORD;
    if (marks.evaluating !== ref.generation || this.mine.has(id)) {
      // Fresh: ours (or unmarked). It waits while a suspect is retried alone.
      return this.entered(ref, await this.exclusive.shared());
    }
    // Marked by a process that never reported on it: it died during this evaluation.
    const before = marks.crashes?.generation === ref.generation ? marks.crashes.count : 0;
    const crashes = this.counted.get(id) ?? before + 1;
    this.counted.set(id, crashes);
    if (crashes >= this.maxCrashes) return { kind: "crashed", crashes };
    const retryAt = this.startedAt + this.retryBaseMs * 2 ** (crashes - 1);
    if (this.now() < retryAt) return { kind: "wait", ms: retryAt - this.now(), crashes };
    const entered = this.entered(ref, await this.exclusive.solo());
    return { ...entered, crashes };
  }

  /** The instance is gone: nothing about it is kept. */
  forget(key: string): void {
    const id = this.good.get(key);
    this.good.delete(key);
    if (id !== undefined) this.mine.delete(id);
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
        this.counted.delete(id);
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
      this.waiting.push({ solo, grant: () => { resolve(this.releaser(solo)); } });
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
