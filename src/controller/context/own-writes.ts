/**
 * The watch events that only echo a write of ours (each would cost a pass;
 * docs/performance-archive.md, "One pass per new instance").
 * A pass that applies a child, or patches its instance's finalizer, reads the API server's answer
 * and acts on it in that same pass (the overlay; apply-rounds.ts writes a dependent again when a
 * dependency's answer changes it); the informer's event for the same object at the same
 * resourceVersion tells that pass nothing new, but it queued the instance again — one more pass
 * per new instance, and since such passes wait behind new work, a 1,000-instance convergence
 * ended with a burst of 1,000 passes that each changed nothing.
 *
 * The event usually arrives before the answer has been read (the watch is quicker than the
 * response), so events for an object with a write of ours in flight wait for its answer: the one
 * at the answer's resourceVersion is dropped, any other is delivered then. An answer whose event
 * has not come yet is remembered until it does — but only for as long as the pass that wrote it
 * is its instance's latest: a later pass read the caches without that pass's answers (the echo
 * had not reached them yet) and may have concluded from their absence, so once another pass of
 * the instance has begun the echo is delivered. Anything else — another resourceVersion, a
 * deletion, a write that failed, a pass forgotten — is delivered as before: at worst the
 * instance is queued once more, as it always was.
 */
import { LRUCache } from "lru-cache";
import { identityKey, identityOf, type KubeJson } from "../../runtime/index.js";

/** A child as applied (JSON) or an instance as patched: only its coordinates and version are read. */
interface Written {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
  readonly metadata?: unknown;
}

/** Answers whose events have not arrived yet (a burst of new instances: ~7 per instance in flight). */
const MAX_OUTSTANDING = 20_000;
/** Instances whose latest pass is remembered; one forgotten only makes its echoes count again. */
const MAX_PASSES = 50_000;

/** Which object: the same for the body we send, the answer, and the informer's copy (undefined: unnamed, not tracked). */
function keyOf(object: Written): string | undefined {
  const identity = identityOf(object as KubeJson);
  return identity === undefined ? undefined : identityKey(identity);
}

function versionOf(object: Written): string | undefined {
  const version = (object.metadata as { resourceVersion?: unknown } | null | undefined)?.resourceVersion;
  return typeof version === "string" ? version : undefined;
}

interface Flight {
  writes: number;
  readonly parked: { readonly version: string | undefined; readonly deliver: () => void }[];
}

/** An answer whose echo is still to come, and the pass (of which instance) that acted on it. */
interface Answer {
  readonly version: string;
  readonly instance: string;
  readonly pass: number;
}

export class OwnWrites {
  private readonly inFlight = new Map<string, Flight>();
  private readonly answered = new LRUCache<string, Answer>({ max: MAX_OUTSTANDING });
  /** Instance key → the number of its latest pass. */
  private readonly passes = new LRUCache<string, number>({ max: MAX_PASSES });
  private passCount = 0;

  /** A pass of `instance` begins: the answers of its earlier passes no longer stand for it. */
  beginPass(instance: string): void {
    this.passes.set(instance, ++this.passCount);
  }

  /**
   * Runs a write of ours to `target` (the object as sent, or as read before a patch) in the
   * current pass of `instance`: events for it wait until `write` settles, then the echo of its
   * answer is dropped and the rest delivered.
   */
  async write<T extends Written>(target: Written, instance: string, write: () => Promise<T>): Promise<T> {
    const key = keyOf(target);
    if (key === undefined) return write();
    const pass = this.passes.get(instance);
    const flight = this.inFlight.get(key) ?? { writes: 0, parked: [] };
    flight.writes++;
    this.inFlight.set(key, flight);
    let answer: T | undefined;
    try {
      answer = await write();
      return answer;
    } finally {
      const version = answer === undefined ? undefined : versionOf(answer);
      this.land(key, flight, version === undefined || pass === undefined ? undefined : { version, instance, pass });
    }
  }

  /**
   * An informer event for `observed`: `deliver` runs now, later (after our write in flight), or
   * never (the echo of an answer the instance's latest pass acted on).
   */
  observe(observed: Written, deliver: () => void): void {
    const key = keyOf(observed);
    if (key === undefined) {
      deliver();
      return;
    }
    const flight = this.inFlight.get(key);
    if (flight !== undefined) {
      flight.parked.push({ version: versionOf(observed), deliver });
      return;
    }
    const answer = this.answered.get(key);
    if (answer !== undefined) {
      this.answered.delete(key);
      if (answer.version === versionOf(observed) && this.passes.get(answer.instance) === answer.pass) return;
    }
    deliver();
  }

  /** The object is gone: nothing of it is expected any more. */
  forget(observed: Written): void {
    const key = keyOf(observed);
    if (key !== undefined) this.answered.delete(key);
  }

  /** Answers whose events have not arrived, and objects with writes in flight (tests, metrics). */
  get outstanding(): { answered: number; inFlight: number } {
    return { answered: this.answered.size, inFlight: this.inFlight.size };
  }

  private land(key: string, flight: Flight, answer: Answer | undefined): void {
    flight.writes--;
    if (flight.writes > 0) return;
    this.inFlight.delete(key);
    // Parked events arrived while the writing pass was still running: it acts on its answer.
    let echoed = false;
    for (const event of flight.parked) {
      if (!echoed && answer !== undefined && event.version === answer.version) echoed = true;
      else event.deliver();
    }
    if (!echoed && answer !== undefined) this.answered.set(key, answer);
  }
}
