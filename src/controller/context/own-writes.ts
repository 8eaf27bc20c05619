/**
 * The watch events that only echo a write of ours (issue #27; docs/performance.md, session 13).
 * A pass that applies a child, or patches its instance's finalizer, reads the API server's answer
 * and acts on it in that same pass; the informer's event for the same object at the same
 * resourceVersion tells nothing new, but it queued the instance again — one more pass per new
 * instance, and since such passes wait behind new work, a 1,000-instance convergence ended with a
 * burst of 1,000 passes that each changed nothing (~400 ms of evaluation, +5.5 MB of RSS).
 *
 * The event usually arrives before the answer has been read (the watch is quicker than the
 * response), so events for an object with a write of ours in flight wait for its answer: the one
 * at the answer's resourceVersion is dropped, any other is delivered then. An answer whose event
 * has not come yet is remembered until it does. Anything else — another resourceVersion, a
 * deletion, a write that failed — is delivered as before, so nothing is lost: at worst the
 * instance is queued once more, as it always was.
 */
import { LRUCache } from "lru-cache";

/** A child as applied (JSON) or an instance as patched: only its coordinates and version are read. */
interface Written {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
  readonly metadata?: unknown;
}

/** Answers whose events have not arrived yet (a burst of new instances: ~7 per instance in flight). */
const MAX_OUTSTANDING = 20_000;

const text = (value: unknown): string => (typeof value === "string" ? value : "");

function metadataOf(object: Written): Record<string, unknown> {
  return typeof object.metadata === "object" && object.metadata !== null ? object.metadata as Record<string, unknown> : {};
}

/** Which object: the same for the body we send, the answer, and the informer's copy. */
function keyOf(object: Written): string {
  const metadata = metadataOf(object);
  return JSON.stringify([text(object.apiVersion), text(object.kind), text(metadata.namespace), text(metadata.name)]);
}

const versionOf = (object: Written): string | undefined => (typeof metadataOf(object).resourceVersion === "string" ? metadataOf(object).resourceVersion as string : undefined);

interface Flight {
  writes: number;
  readonly parked: { readonly version: string | undefined; readonly deliver: () => void }[];
}

export class OwnWrites {
  private readonly inFlight = new Map<string, Flight>();
  private readonly answered = new LRUCache<string, string>({ max: MAX_OUTSTANDING });

  /**
   * Runs a write of ours to `target` (the object as sent, or as read before a patch): events for
   * it wait until `write` settles, then the echo of its answer is dropped and the rest delivered.
   */
  async write<T extends Written>(target: Written, write: () => Promise<T>): Promise<T> {
    const key = keyOf(target);
    const flight = this.inFlight.get(key) ?? { writes: 0, parked: [] };
    flight.writes++;
    this.inFlight.set(key, flight);
    let answer: T | undefined;
    try {
      answer = await write();
      return answer;
    } finally {
      this.land(key, flight, answer === undefined ? undefined : versionOf(answer));
    }
  }

  /**
   * An informer event for `observed`: `deliver` runs now, later (after our write in flight), or
   * never (the echo of our own answer).
   */
  observe(observed: Written, deliver: () => void): void {
    const key = keyOf(observed);
    const version = versionOf(observed);
    const flight = this.inFlight.get(key);
    if (flight !== undefined) {
      flight.parked.push({ version, deliver });
      return;
    }
    const answered = this.answered.get(key);
    if (answered !== undefined) {
      this.answered.delete(key);
      if (answered === version) return;
    }
    deliver();
  }

  /** The object is gone: nothing of it is expected any more. */
  forget(observed: Written): void {
    this.answered.delete(keyOf(observed));
  }

  /** Answers whose events have not arrived, and objects with writes in flight (tests, metrics). */
  get outstanding(): { answered: number; inFlight: number } {
    return { answered: this.answered.size, inFlight: this.inFlight.size };
  }

  private land(key: string, flight: Flight, version: string | undefined): void {
    flight.writes--;
    if (flight.writes > 0) return;
    this.inFlight.delete(key);
    let echoed = false;
    for (const event of flight.parked) {
      if (!echoed && version !== undefined && event.version === version) echoed = true;
      else event.deliver();
    }
    if (!echoed && version !== undefined) this.answered.set(key, version);
  }
}
