/**
 * The crash-loop guard (issue #26 point 2): an instance whose evaluation kills the controller
 * process (a V8 out-of-memory of the main heap, a native crash, a stall the kubelet ends) must not
 * kill it again after every restart. Before an evaluation that is not known good — the first of
 * an instance's generation in this process, unless its status says an earlier process finished
 * one — the replica's crash record lists it as in flight; the record is written before the
 * evaluation starts (group commit: one write covers every evaluation that begins while the
 * previous write is out) and cleared lazily (the next write, or one `clearDelayMs` later), so a
 * converged controller writes nothing and a burst of new instances shares a few writes.
 *
 * On start, whatever was in flight when the previous process died becomes a suspect (one crash
 * counted). A suspect is evaluated again only after a backoff (`retryBaseMs` × 2^(crashes−1)
 * after this process started), alone among the evaluations that are not known good — so a crash
 * during its retry is blamed on it and nobody else — and after `maxCrashes` crashes it is not
 * evaluated again for that generation: the caller reports EvaluationCrashed until the spec
 * changes (a new generation or UID drops the suspicion). A suspect that comes through is cleared.
 *
 * Known-good evaluations (a generation this process or, by its status, an earlier one already
 * evaluated) are not recorded: a crash that depends on cluster data rather than on the spec can
 * still repeat — see docs/design/runtime.md, "Isolation".
 */

export interface EvaluationRef {
  readonly key: string;
  readonly uid: string;
  readonly generation: number;
}

export interface Suspect extends EvaluationRef {
  /** Processes that died while this evaluation was in flight. */
  readonly crashes: number;
  /** When the last of them was counted (ISO time). */
  readonly lastCrash: string;
}

/** What the record holds (a ConfigMap in the coordination namespace, crash-record.ts). */
export interface CrashRecordData {
  readonly inflight: readonly EvaluationRef[];
  readonly suspects: readonly Suspect[];
}

/** Where the record lives. write() answers false when it may not be kept at all (RBAC): the guard then stands down. */
export interface CrashRecordStore {
  read(): Promise<CrashRecordData | undefined>;
  write(data: CrashRecordData): Promise<boolean>;
}

export type GuardDecision =
  /** Evaluate; call done() when the pass is over (thrown or not: the process survived it). */
  | { readonly kind: "evaluate"; done(): void }
  /** A suspect waiting for its retry. */
  | { readonly kind: "wait"; readonly ms: number; readonly suspect: Suspect }
  /** Crashed the controller maxCrashes times: not evaluated again for this generation. */
  | { readonly kind: "crashed"; readonly suspect: Suspect };

export interface EvaluationGuardOptions {
  readonly maxCrashes?: number;
  readonly retryBaseMs?: number;
  readonly clearDelayMs?: number;
  readonly now?: () => number;
  readonly onStandDown?: () => void;
}

const identity = (e: EvaluationRef): string => `${e.uid}/${e.generation}`;

export class EvaluationGuard {
  private readonly maxCrashes: number;
  private readonly retryBaseMs: number;
  private readonly clearDelayMs: number;
  private readonly now: () => number;
  private readonly inflight = new Map<string, EvaluationRef>();
  private readonly suspects = new Map<string, Suspect>();
  /** Instance key → the uid/generation this process evaluated and survived. */
  private readonly good = new Map<string, string>();
  private readonly exclusive = new SoloLock();
  private started: Promise<void> | undefined;
  private startedAt = 0;
  private standingDown = false;
  private writing: Promise<void> | undefined;
  /** Bumped by every change; a write persists the version it started with. */
  private version = 0;
  private persisted = 0;
  private lazyTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly store: CrashRecordStore, options: EvaluationGuardOptions = {}) {
    this.maxCrashes = Math.max(1, options.maxCrashes ?? 3);
    this.retryBaseMs = options.retryBaseMs ?? 2_000;
    this.clearDelayMs = options.clearDelayMs ?? 2_000;
    this.now = options.now ?? Date.now;
    this.onStandDown = options.onStandDown;
  }

  private readonly onStandDown: (() => void) | undefined;

  /** Reads what the previous process left and counts its crash; the one write of a start. */
  start(): Promise<Suspect[]> {
    const run = async (): Promise<Suspect[]> => {
      this.startedAt = this.now();
      const left = await this.store.read();
      const at = new Date(this.now()).toISOString();
      for (const s of left?.suspects ?? []) this.suspects.set(s.key, s);
      for (const e of left?.inflight ?? []) {
        const before = this.suspects.get(e.key);
        const same = before !== undefined && identity(before) === identity(e);
        this.suspects.set(e.key, { key: e.key, uid: e.uid, generation: e.generation, crashes: (same ? before.crashes : 0) + 1, lastCrash: at });
      }
      this.version++;
      await this.flush();
      return [...this.suspects.values()];
    };
    const result = run();
    // A start that failed (the server unreachable) is tried again by the next enter().
    this.started = result.then(() => undefined, (error: unknown) => {
      this.started = undefined;
      throw error;
    });
    this.started.catch(() => undefined); // awaited by enter(); never an unhandled rejection
    return result;
  }

  /** The suspects now (for logs and tests). */
  suspectList(): Suspect[] {
    return [...this.suspects.values()];
  }

  /**
   * Before the first evaluation of a pass. `knownGood`: the instance's status says an earlier
   * process finished an evaluation of this generation.
   */
  async enter(ref: EvaluationRef, knownGood: boolean): Promise<GuardDecision> {
    await (this.started ?? this.start());
    if (this.standingDown) return { kind: "evaluate", done: () => undefined };
    const suspect = this.suspects.get(ref.key);
    if (suspect !== undefined && identity(suspect) !== identity(ref)) {
      // The spec changed (or the name was reused): what crashed is not what runs now.
      this.suspects.delete(ref.key);
      this.changed(true);
    } else if (suspect !== undefined) {
      if (suspect.crashes >= this.maxCrashes) return { kind: "crashed", suspect };
      const retryAt = this.startedAt + this.retryBaseMs * 2 ** (suspect.crashes - 1);
      if (this.now() < retryAt) return { kind: "wait", ms: retryAt - this.now(), suspect };
      const release = await this.exclusive.solo();
      return this.recorded(ref, () => {
        this.suspects.delete(ref.key);
        release();
      }, true);
    }
    if (knownGood || this.good.get(ref.key) === identity(ref)) return { kind: "evaluate", done: () => undefined };
    const release = await this.exclusive.shared();
    return this.recorded(ref, release, false);
  }

  /** The instance is gone: nothing about it is kept. */
  forget(key: string): void {
    this.good.delete(key);
    if (this.suspects.delete(key)) this.changed(false);
  }

  /** A clean stop: nothing is in flight, the suspects stay for the next process. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.lazyTimer !== undefined) clearTimeout(this.lazyTimer);
    await this.started?.catch(() => undefined);
    if (this.standingDown || this.started === undefined) return;
    this.inflight.clear();
    this.version++;
    await this.flush();
  }

  private async recorded(ref: EvaluationRef, release: () => void, promptClear: boolean): Promise<GuardDecision> {
    this.inflight.set(ref.key, ref);
    this.version++;
    try {
      await this.persist(this.version);
    } catch (error) {
      this.inflight.delete(ref.key);
      release();
      throw error;
    }
    let finished = false;
    return {
      kind: "evaluate",
      done: () => {
        if (finished) return;
        finished = true;
        this.inflight.delete(ref.key);
        this.good.set(ref.key, identity(ref));
        release();
        this.changed(promptClear);
      },
    };
  }

  /** Something to write: now (a cleared suspect must not be counted again) or lazily. */
  private changed(now: boolean): void {
    this.version++;
    if (this.stopped || this.standingDown) return;
    if (now) {
      void this.persist(this.version).catch(() => undefined);
      return;
    }
    this.lazyTimer ??= setTimeout(() => {
      this.lazyTimer = undefined;
      void this.persist(this.version).catch(() => undefined);
    }, this.clearDelayMs);
    this.lazyTimer.unref();
  }

  /** Resolves once a write of at least `version` is on the server; one write out at a time. */
  private async persist(version: number): Promise<void> {
    while (this.persisted < version && !this.standingDown) {
      if (this.writing !== undefined) {
        await this.writing;
        continue;
      }
      this.writing = this.flush().finally(() => { this.writing = undefined; });
      await this.writing;
    }
  }

  private async flush(): Promise<void> {
    const version = this.version;
    const kept = await this.store.write({ inflight: [...this.inflight.values()], suspects: [...this.suspects.values()] });
    if (!kept) {
      this.standingDown = true;
      this.onStandDown?.();
    }
    this.persisted = Math.max(this.persisted, version);
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
