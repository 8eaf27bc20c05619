/**
 * One shard as this replica sees it: a small state machine with no I/O, driven by the shard
 * coordinator (the executor) and by the reconciles it admits.
 *
 *   free ──acquired──▶ held ──not ours any more──▶ draining ──no reconcile in flight──▶ releasing ──▶ free
 *                       ▲  └──────────── ours again ◀──────┘                              (fence closed first)
 *   held / draining ──renew deadline passed, or the Lease seen with another holder──▶ free (lost)
 *
 * Each tenure (acquire → release or loss) has a WriteFence of its own, held until the last
 * renewal *sent* + renewDeadline on this process's monotonic clock, exactly as leader election's.
 * A reconcile is admitted only while the tenure is `held` and its fence open; a draining shard
 * admits nothing and is released only when the reconciles it admitted have finished, and its
 * fence is closed before the release is sent — so the next holder, who acquires only a free or
 * expired Lease, can never write at the same time as this one.
 */
import { WriteFence } from "../../kube/index.js";

export const SHARD_PHASES = { free: "free", held: "held", draining: "draining", releasing: "releasing" } as const;
export type ShardPhase = (typeof SHARD_PHASES)[keyof typeof SHARD_PHASES];

/** What the coordinator should do next for this shard. */
export type ShardAction = "acquire" | "renew" | "release" | "wait";

/** What one round observed of a shard: our side (phase, reconciles in flight) and the Lease's. */
export interface ShardObservation {
  readonly phase: ShardPhase;
  readonly inFlight: number;
  readonly identity: string;
  /** The Lease's holder as listed this round; undefined when the Lease does not exist (yet). */
  readonly holder: string | undefined;
  /** The assignment gives this shard to us. */
  readonly wanted: boolean;
  /** The Lease has not changed for its duration, as observed by our own clock. */
  readonly expired: boolean;
}

export type ShardDecision =
  | { readonly action: ShardAction; readonly transition?: "drain" | "resume" }
  | { readonly action: "lose"; readonly why: string };

/**
 * The decision of one round for one shard. Pure. A tenure whose Lease names another holder ends
 * at once; a held shard the assignment moved elsewhere drains (and is taken back if the
 * assignment returns before it is released); a free shard is acquired only when it is ours to
 * take — free, expired by our clock, or recorded as ours (a restart under the same name).
 */
export function decideShard(o: ShardObservation): ShardDecision {
  const tenure = o.phase === SHARD_PHASES.held || o.phase === SHARD_PHASES.draining;
  if (tenure && o.holder !== undefined && o.holder !== o.identity)
    return { action: "lose", why: `the shard's Lease is held by ${o.holder === "" ? "nobody" : o.holder}` };
  const transition =
    o.phase === SHARD_PHASES.held && !o.wanted
      ? "drain"
      : o.phase === SHARD_PHASES.draining && o.wanted
        ? "resume"
        : undefined;
  const phase = transition === "drain" ? SHARD_PHASES.draining : transition === "resume" ? SHARD_PHASES.held : o.phase;
  const takeable = o.holder === undefined || o.holder === "" || o.holder === o.identity || o.expired;
  const action: ShardAction =
    phase === SHARD_PHASES.free
      ? o.wanted && takeable
        ? "acquire"
        : "wait"
      : phase === SHARD_PHASES.held
        ? "renew"
        : phase === SHARD_PHASES.draining
          ? o.inFlight === 0
            ? "release"
            : "renew"
          : "wait";
  return transition === undefined ? { action } : { action, transition };
}

export class ShardSlot {
  private state: ShardPhase = SHARD_PHASES.free;
  private tenure: WriteFence | undefined;
  private running = 0;
  private why = "";
  private until = -Infinity;

  constructor(
    readonly shard: number,
    private readonly now: () => number,
    private readonly renewDeadlineMs: number,
  ) {}

  get phase(): ShardPhase {
    this.expireIfLapsed();
    return this.state;
  }

  /** Reconciles admitted in this tenure and not finished yet. */
  get inFlight(): number {
    return this.running;
  }

  /** The current tenure's fence (undefined while free). */
  get fence(): WriteFence | undefined {
    return this.tenure;
  }

  /** When the current tenure's fence closes unless renewed (monotonic ms; -Infinity while free). */
  get deadline(): number {
    return this.state === SHARD_PHASES.held || this.state === SHARD_PHASES.draining ? this.until : -Infinity;
  }

  /** Why the last tenure ended (for logs). */
  get endedBecause(): string {
    return this.why;
  }

  /** Our acquire write (sent at `sentAt`) succeeded: a new tenure with a new fence. */
  acquired(sentAt: number): WriteFence {
    this.tenure?.close("superseded by a new tenure");
    this.tenure = new WriteFence(this.now);
    this.until = sentAt + this.renewDeadlineMs;
    this.tenure.holdUntil(this.until);
    this.state = SHARD_PHASES.held;
    this.running = 0;
    return this.tenure;
  }

  /** Our renewal (sent at `sentAt`) succeeded: the fence may stay open until sentAt + renewDeadline. */
  renewed(sentAt: number): void {
    if (this.state !== SHARD_PHASES.held && this.state !== SHARD_PHASES.draining) return;
    this.until = Math.max(this.until, sentAt + this.renewDeadlineMs);
    this.tenure?.holdUntil(this.until);
  }

  /** The assignment moved the shard elsewhere: stop admitting, keep renewing until drained. */
  drain(): void {
    if (this.phase === SHARD_PHASES.held) this.state = SHARD_PHASES.draining;
  }

  /** The assignment gave the shard back to us while it was draining. */
  resume(): void {
    if (this.phase === SHARD_PHASES.draining) this.state = SHARD_PHASES.held;
  }

  /** About to send the release: the fence closes first, so nothing of ours is written after it. */
  releasing(): void {
    this.tenure?.close("released the shard");
    this.state = SHARD_PHASES.releasing;
    this.why = "released";
  }

  /** The release was sent (or failed: the Lease then expires by itself). */
  released(): void {
    if (this.state === SHARD_PHASES.releasing) this.state = SHARD_PHASES.free;
  }

  /** The tenure ends at once (renew deadline passed, another holder seen, or shutdown). */
  lose(why: string): void {
    if (this.state === SHARD_PHASES.free) return;
    this.tenure?.close(why);
    this.state = SHARD_PHASES.free;
    this.why = why;
  }

  /** A reconcile may start for this shard: the fence to write through, or undefined. */
  admit(): WriteFence | undefined {
    if (this.phase !== SHARD_PHASES.held || this.tenure?.open !== true) return undefined;
    this.running++;
    return this.tenure;
  }

  /** An admitted reconcile finished. A fence from an older tenure no longer counts. */
  leave(fence: WriteFence): void {
    if (fence === this.tenure && this.running > 0) this.running--;
  }

  private expireIfLapsed(): void {
    if ((this.state === SHARD_PHASES.held || this.state === SHARD_PHASES.draining) && this.tenure?.open !== true) {
      this.lose("could not renew the shard's Lease within the renew deadline");
    }
  }
}
