/**
 * What the controller remembers about each instance between passes, with one owner and one
 * `forget`. The memory is only ever an optimisation or a pacing (the cluster is the truth), but a
 * memory kept after its instance is gone is a leak proportional to every instance that ever
 * existed — and a status memo that outlives a re-created instance of the same name would be read
 * against the wrong object if it were keyed by name (it is keyed by UID for that reason).
 *
 * `forget(key, uid)` is called on every way an instance disappears: its informer reports it
 * deleted (also when sharding moves it to another replica's selection), a pass finds it gone,
 * our finalizer is removed, its RGD stops being served.
 */
export class InstanceMemory {
  /** Instance UID → fingerprint of the last status we wrote (status-write.ts). */
  readonly statusWritten = new Map<string, string>();
  /** Instance key → how many passes its deletion has waited on a terminating wave (backoff). */
  readonly deletionWaits = new Map<string, number>();
  /** Instance key → the generation whose time-limit miss was already tried again (instance/time-limit-retry.ts). */
  readonly timeLimitRetried = new Map<string, number>();
  private readonly holders: ((key: string) => void)[] = [];

  /** Another room's per-instance state (an instance's external watches, the crash-loop guard, the author policy's pending writes). */
  alsoHeldBy(forget: (key: string) => void): void {
    this.holders.push(forget);
  }

  forget(key: string, uid: string | undefined): void {
    this.deletionWaits.delete(key);
    this.timeLimitRetried.delete(key);
    if (uid !== undefined) this.statusWritten.delete(uid);
    for (const forget of this.holders) forget(key);
  }

  /** A new shard tenure: the statuses we wrote are no proof of what is stored (another replica may have written since). */
  forgetWrittenStatuses(): void {
    this.statusWritten.clear();
  }

  /** Instances remembered (tests, diagnostics). */
  get size(): number {
    return this.statusWritten.size + this.deletionWaits.size;
  }
}
