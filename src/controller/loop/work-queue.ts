/**
 * A level-based work queue of keys, with client-go's guarantees: a key is queued at most once,
 * never processed by two workers at once (a key added while in flight is re-queued when its
 * worker is done), delayed adds, and per-key exponential backoff for failures.
 *
 * Two lanes: **fresh** work — an object never reconciled, or a new generation
 * (`addFresh`) — is handed out before everything else (events of children, requeues, retries), so
 * a new instance does not wait behind a backlog of retries after an outage. A key in both is one
 * key: a fresh add promotes a waiting key, a plain add never demotes it. Every FRESH_RUN fresh keys
 * in a row, one waiting key of the other lane goes first, so neither lane can starve the other.
 *
 * Failures the server caused (no answer, 5xx, 429: `transient`) are remembered; when the server is
 * back `retryTransientNow()` forgets their backoff and queues them at once — a key that failed ten
 * times during a 5-minute outage is not parked for 17 more minutes. The workers and the client's
 * rate limit pace them: the queue never hands out more than the workers take.
 *
 * With `flows`, keys are grouped into flows (for instances: namespace, then RGD) and the next key
 * comes from the flow that used the workers least lately (fair-flows.ts); the lanes above hold
 * within each flow. Without, every key is in one flow.
 */
import { systemClock, type Clock, type Timer } from "../clock/index.js";
import { FairFlows } from "./fair-flows.js";

export interface WorkQueueOptions {
  /** First retry delay after a failure; doubles per consecutive failure of the same key. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Delayed adds wait on this clock (default: the system's). */
  readonly clock?: Clock;
  /** Fair shares between flows: each key's flow path, all of length `depth`. */
  readonly flows?: { readonly depth: number; readonly of: (key: string) => readonly string[] };
  /** Called when a key is handed out, with how long it waited since it was queued (ms) and its flow. */
  readonly onWait?: (key: string, waitedMs: number, flow: readonly string[]) => void;
}

type Lane = "fresh" | "normal";
interface Entry {
  readonly key: string;
  readonly lane: Lane;
  readonly ticket: number;
  readonly path: readonly string[];
  /** When the key began to wait (a promotion keeps it). */
  readonly since: number;
}

/** One flow's waiting keys: FIFO per lane, stale entries skipped. */
interface FlowLanes {
  readonly fresh: Entry[];
  readonly normal: Entry[];
  freshInARow: number;
}

/** Fresh keys handed out in a row before one waiting normal key gets its turn. */
export const FRESH_RUN = 8;

export class WorkQueue {
  /** Lanes per flow; an entry is live only while `dirty` holds its key with the same ticket (stale ones are skipped). */
  private readonly flows: FairFlows<FlowLanes>;
  private readonly flowOf: (key: string) => readonly string[];
  private readonly dirty = new Map<string, Entry>();
  private tickets = 0;
  /** Keys handed out: their flow and when. */
  private readonly processing = new Map<string, { readonly path: readonly string[]; readonly at: number }>();
  private readonly failures = new Map<string, number>();
  /** Keys whose last failure the server caused: retried at once when it is back. */
  private readonly transient = new Set<string>();
  private readonly timers = new Map<string, { at: number; timer: Timer }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly clock: Clock;
  private readonly onWait: WorkQueueOptions["onWait"];

  constructor(options: WorkQueueOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 300_000;
    this.clock = options.clock ?? systemClock;
    this.onWait = options.onWait;
    this.flows = new FairFlows(options.flows?.depth ?? 0, () => ({ fresh: [], normal: [], freshInARow: 0 }));
    this.flowOf = options.flows?.of ?? (() => []);
  }

  /** Keys waiting to be processed (not counting delayed ones or those in flight). */
  get isShutDown(): boolean {
    return this.shuttingDown;
  }

  get length(): number {
    let n = 0;
    for (const key of this.dirty.keys()) if (!this.processing.has(key)) n++;
    return n;
  }

  get inFlight(): number {
    return this.processing.size;
  }

  add(key: string): void {
    this.enqueue(key, "normal");
  }

  /** New work: an object never reconciled, or a new generation of it. Goes before retries and requeues. */
  addFresh(key: string): void {
    this.enqueue(key, "fresh");
  }

  private enqueue(key: string, lane: Lane): void {
    if (this.shuttingDown) return;
    const queued = this.dirty.get(key);
    if (queued !== undefined) {
      if (lane === "fresh" && queued.lane === "normal") {
        const promoted = { ...queued, lane, ticket: ++this.tickets };
        this.dirty.set(key, promoted);
        if (!this.processing.has(key)) this.flows.leaf(promoted.path).fresh.push(promoted); // its normal entry goes stale
      }
      return;
    }
    const entry: Entry = { key, lane, ticket: ++this.tickets, path: this.flowOf(key), since: this.clock.now() };
    this.dirty.set(key, entry);
    if (this.processing.has(key)) return; // done() re-queues it
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.dirty.delete(key);
      this.handOut(entry);
      waiter(key);
    } else {
      this.flows.leaf(entry.path)[lane].push(entry);
    }
  }

  private handOut(entry: Entry): void {
    const now = this.clock.now();
    this.processing.set(entry.key, { path: entry.path, at: now });
    this.flows.start(entry.path, now);
    this.onWait?.(entry.key, now - entry.since, entry.path);
  }

  /** Adds the key after a delay; an earlier pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + delayMs;
    const pending = this.timers.get(key);
    if (pending !== undefined && pending.at <= at) return;
    pending?.timer.cancel();
    const timer = this.clock.setTimer(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    this.timers.set(key, { at, timer });
  }

  /**
   * Re-queues a failed key after its backoff: base × 2^(failures−1), capped. Returns the delay.
   * `transient`: the server caused it (see retryTransientNow).
   */
  addRateLimited(key: string, options: { readonly transient?: boolean } = {}): number {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    if (options.transient === true) this.transient.add(key);
    else this.transient.delete(key);
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(failures - 1, 40));
    this.addAfter(key, delay);
    return delay;
  }

  /**
   * The server is back: every key whose last failure it caused loses its backoff and is queued now
   * (behind fresh work). Returns how many.
   */
  retryTransientNow(): number {
    const keys = [...this.transient];
    this.transient.clear();
    for (const key of keys) {
      this.failures.delete(key);
      const pending = this.timers.get(key);
      if (pending !== undefined) {
        pending.timer.cancel();
        this.timers.delete(key);
      }
      this.add(key);
    }
    return keys.length;
  }

  /** Clears the failure history of a key (after a success). */
  forget(key: string): void {
    this.failures.delete(key);
    this.transient.delete(key);
  }

  failureCount(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process; undefined once the queue is shut down. Call done(key) afterwards. */
  get(): Promise<string | undefined> {
    const entry = this.next();
    if (entry !== undefined) {
      this.dirty.delete(entry.key);
      this.handOut(entry);
      return Promise.resolve(entry.key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** From the flow that used the workers least: its fresh lane first, one waiting normal key every FRESH_RUN. */
  private next(): Entry | undefined {
    const flow = this.flows.pick(this.clock.now(), (lanes) => this.live(lanes.fresh) || this.live(lanes.normal));
    if (flow === undefined) return undefined;
    const normalTurn = flow.freshInARow >= FRESH_RUN;
    const first = normalTurn
      ? (this.take(flow.normal) ?? this.take(flow.fresh))
      : (this.take(flow.fresh) ?? this.take(flow.normal));
    if (first === undefined) return undefined;
    flow.freshInARow = first.lane === "fresh" ? flow.freshInARow + 1 : 0;
    return first;
  }

  /** Whether a lane has a live entry, dropping stale ones at its head (promoted, or handed out and queued again since). */
  private live(list: Entry[]): boolean {
    for (let entry = list[0]; entry !== undefined; entry = list[0]) {
      if (this.dirty.get(entry.key)?.ticket === entry.ticket && !this.processing.has(entry.key)) return true;
      list.shift();
    }
    return false;
  }

  private take(list: Entry[]): Entry | undefined {
    return this.live(list) ? list.shift() : undefined;
  }

  done(key: string): void {
    const running = this.processing.get(key);
    this.processing.delete(key);
    if (running !== undefined) this.flows.finish(running.path, running.at, this.clock.now());
    const queued = this.dirty.get(key);
    if (queued !== undefined) {
      this.dirty.delete(key);
      this.enqueue(key, queued.lane);
    }
  }

  /** Stops handing out keys: waiting get() calls resolve with undefined; delayed adds are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) timer.cancel();
    this.timers.clear();
    this.flows.clear();
    this.dirty.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
