/**
 * A write fence: the client refuses every mutating request unless the fence is held, checked
 * right before the request goes on the wire, and aborts writes in flight when it closes. Leader
 * election holds it until (last renewal sent + renew deadline), judged on this process's
 * monotonic clock, so a deposed leader stops writing even if its timers run late.
 * Once closed a fence never reopens: a process that lost its lease exits and starts afresh.
 * Its limit: a write that passed its last check is not taken back, so one the process was paused
 * on — between that check and its bytes reaching the kernel — goes out when it resumes.
 */
import { FencedError } from "./errors.js";

export class WriteFence {
  private readonly abort = new AbortController();
  private why: string | undefined;
  private validUntil = -Infinity;
  private everHeld = false;
  private refusedCount = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Closed for good (lost or released); a fence not yet held is not closed, just not open. */
  get closed(): boolean {
    return this.why !== undefined;
  }

  /** Writes may go out now. */
  get open(): boolean {
    return this.why === undefined && this.now() <= this.validUntil;
  }

  /** Aborts when the fence closes: in-flight writes listen to it. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Writes refused so far (refused writes never reach the server). */
  get refused(): number {
    return this.refusedCount;
  }

  /** Allows writes until `until` (same clock as `now`); only ever moves forward. */
  holdUntil(until: number): void {
    if (this.why !== undefined) return;
    this.everHeld = true;
    this.validUntil = Math.max(this.validUntil, until);
  }

  close(why: string): void {
    if (this.why !== undefined) return;
    this.why = why;
    this.validUntil = -Infinity;
    this.abort.abort(new FencedError("*", "*", why));
  }

  /** Throws FencedError unless writes may go out; call right before a write is sent. */
  check(verb: string, path: string): void {
    if (this.open) return;
    this.refusedCount++;
    if (this.why === undefined && this.everHeld) this.close("the lease was not renewed within the renew deadline");
    throw new FencedError(verb, path, this.why ?? "this process does not hold the lease");
  }
}
