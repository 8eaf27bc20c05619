/**
 * When an RGD's author policy was not (surely) in force, in the two clocks the controller has:
 * the API server's revisions where it knows them (the revision of the
 * event that showed the policy deleted or edited, the revision of the restore it applied), and
 * its own wall clock otherwise. A write is judged by the revision it was stored at, so the
 * order in which the instance's and the policy's watch events arrive no longer matters.
 *
 * Relying on revisions: Kubernetes calls resourceVersion opaque, but every object's version is
 * etcd's single, global modification revision in practice (decimal integers, one counter for
 * all kinds). Where a version is not a decimal integer, the window falls back to the time the
 * controller observed the write — the pre-revision behaviour — and says nothing about order.
 */

/** The API server loads (re-)created policies asynchronously; writes seen this soon after a restore are not trusted. */
export const SETTLE_MS = 2_000;

/** How many past windows are remembered per RGD (older ones only matter for writes older still). */
const KEPT = 16;

export interface BreachWindow {
  /** Revision of the breaching change (deleted or edited object); undefined: not known. */
  fromRv: bigint | undefined;
  fromTime: number;
  /** Revision of the restore (the newest object the controller applied); undefined: still open, or not known. */
  toRv: bigint | undefined;
  /** Wall-clock time of the restore; undefined while the window is open. */
  toTime: number | undefined;
  /**
   * Once the API server was shown to enforce the restored policy (a request it must refuse was
   * refused): the cluster's revision read after that refusal, and when. Until then, for a policy
   * that is proven this way, the restore alone does not close the window (proveLoaded).
   */
  loadedRv?: bigint | undefined;
  loadedTime?: number | undefined;
}

/** A write of an instance as the controller saw it: its resourceVersion and when its event arrived. */
export interface ObservedWrite {
  readonly resourceVersion: string | undefined;
  readonly observedAt: number;
}

/** The revision a resourceVersion stands for, or undefined when it is not a decimal integer. */
export function revisionOf(resourceVersion: string | undefined): bigint | undefined {
  return resourceVersion !== undefined && /^[0-9]{1,30}$/.test(resourceVersion) ? BigInt(resourceVersion) : undefined;
}

export function openWindow(windows: BreachWindow[], resourceVersion: string | undefined, now: number): void {
  const last = windows.at(-1);
  if (last !== undefined && last.toTime === undefined) return;
  windows.push({ fromRv: revisionOf(resourceVersion), fromTime: now, toRv: undefined, toTime: undefined });
  if (windows.length > KEPT) windows.splice(0, windows.length - KEPT);
}

export function closeWindow(
  windows: BreachWindow[],
  restoredVersions: readonly (string | undefined)[],
  now: number,
): void {
  const last = windows.at(-1);
  if (last === undefined || last.toTime !== undefined) return;
  let newest: bigint | undefined;
  let known = restoredVersions.length > 0;
  for (const version of restoredVersions) {
    const rv = revisionOf(version);
    if (rv === undefined) known = false;
    else if (newest === undefined || rv > newest) newest = rv;
  }
  last.toRv = known ? newest : undefined;
  last.toTime = now;
}

/**
 * The API server was shown to enforce the restored policy; `resourceVersion`: the cluster's
 * revision read after that (a consistent list). Writes stored up to it are judged as written
 * without the policy: they may have been admitted before the API server loaded it, however late
 * their events reach the controller.
 */
export function proveLoaded(window: BreachWindow, resourceVersion: string | undefined, now: number): void {
  window.loadedRv = revisionOf(resourceVersion);
  window.loadedTime = now;
}

/**
 * Whether a write may have been admitted without the policy: stored after the breach, and before
 * the restore or seen within SETTLE_MS after it (the API server may not have loaded it yet). Where
 * the load was proven, the end is the revision read after the proof, and SETTLE_MS counts from the
 * proof (a request admitted just before the load may be stored a moment later).
 */
export function withinWindow(window: BreachWindow, write: ObservedWrite): boolean {
  const rv = revisionOf(write.resourceVersion);
  const afterBreach =
    rv !== undefined && window.fromRv !== undefined ? rv >= window.fromRv : write.observedAt >= window.fromTime;
  if (!afterBreach) return false;
  if (window.toTime === undefined) return true;
  const endTime = window.loadedTime ?? window.toTime;
  const endRv = window.loadedTime === undefined ? window.toRv : window.loadedRv;
  if (write.observedAt < endTime + SETTLE_MS) return true;
  // Seen later than that: suspect only if stored before the end (known by revision only).
  return rv !== undefined && endRv !== undefined && rv <= endRv;
}
