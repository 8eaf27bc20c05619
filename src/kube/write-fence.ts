/**
 * A write fence: once closed, the client refuses every mutating request before it is sent and
 * aborts the ones in flight. Leader election closes it when the lease can no longer be renewed,
 * so a deposed leader stops writing at once, whatever its reconciles are in the middle of.
 * A fence never reopens: a process that lost its lease exits and starts afresh.
 */
import { FencedError } from "./errors.js";

export class WriteFence {
  private readonly abort = new AbortController();
  private why: string | undefined;
  private refusedCount = 0;

  get closed(): boolean {
    return this.why !== undefined;
  }

  /** Aborts when the fence closes: in-flight writes listen to it. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Writes refused since the fence closed (tests count them; the target of "writes after loss" is what got through: 0). */
  get refused(): number {
    return this.refusedCount;
  }

  close(why: string): void {
    if (this.why !== undefined) return;
    this.why = why;
    this.abort.abort(new FencedError("*", "*", why));
  }

  /** Throws FencedError when closed; call right before a write goes on the wire. */
  check(verb: string, path: string): void {
    if (this.why === undefined) return;
    this.refusedCount++;
    throw new FencedError(verb, path, this.why);
  }
}
