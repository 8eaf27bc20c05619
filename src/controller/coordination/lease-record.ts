/**
 * The leader Lease's record and how a candidate judges it, as client-go's leaderelection does:
 * expiry is never computed from the holder's renewTime (another machine's clock) but from when
 * *this* process last saw the record change, plus the record's leaseDurationSeconds.
 */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** MicroTime as the API server formats it (RFC 3339 with microseconds). */
export const microTime = (ms: number): string => new Date(ms).toISOString().replace("Z", "000Z");

/** Timing of an election; renewDeadline < leaseDuration is what keeps two leaders apart. */
export interface LeaseTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** client-go's JitterFactor: retries are spread over [retryPeriod, 1.2 × retryPeriod]. */
export const JITTER_FACTOR = 1.2;

/** client-go's checks, with the message naming the flags at fault. */
export function validateLeaseTiming(t: LeaseTiming): void {
  for (const [name, value] of Object.entries(t)) {
    if (!Number.isFinite(value) || value <= 0)
      throw new Error(`leader election: ${name} must be a positive duration, got ${value}`);
  }
  if (t.leaseDurationMs <= t.renewDeadlineMs)
    throw new Error(
      `leader election: leaseDuration (${t.leaseDurationMs} ms) must be greater than renewDeadline (${t.renewDeadlineMs} ms)`,
    );
  if (t.renewDeadlineMs <= JITTER_FACTOR * t.retryPeriodMs)
    throw new Error(
      `leader election: renewDeadline (${t.renewDeadlineMs} ms) must be greater than ${JITTER_FACTOR} × retryPeriod (${t.retryPeriodMs} ms)`,
    );
  if (t.leaseDurationMs < 1000)
    throw new Error(
      `leader election: leaseDuration (${t.leaseDurationMs} ms) must be at least 1 s (the Lease stores whole seconds)`,
    );
}

/**
 * What this candidate last saw of the record and when (monotonic ms). A record that differs
 * from the last one seen restarts the clock: someone renewed it.
 */
export class ObservedLease {
  private raw: string | undefined;
  private record: LeaseSpec = {};
  private at = -Infinity;

  constructor(private readonly now: () => number) {}

  /** Notes the record as read from the server. */
  observe(spec: LeaseSpec): void {
    const raw = JSON.stringify(spec);
    if (raw !== this.raw) {
      this.raw = raw;
      this.record = spec;
      this.at = this.now();
    }
  }

  /** Notes a record this process wrote itself, sent at `sentAt` (the earliest it could count from). */
  wrote(spec: LeaseSpec, sentAt: number): void {
    this.raw = JSON.stringify(spec);
    this.record = spec;
    this.at = sentAt;
  }

  /** Held by someone (not `identity`) whose lease has not run out by our own clock. */
  heldByOther(identity: string): boolean {
    const holder = this.record.holderIdentity ?? "";
    if (holder === "" || holder === identity) return false;
    return this.at + (this.record.leaseDurationSeconds ?? 0) * 1000 > this.now();
  }

  /** How long until the record seen runs out by our clock (Infinity when never seen). */
  msUntilExpiry(): number {
    return this.at + (this.record.leaseDurationSeconds ?? 0) * 1000 - this.now();
  }

  get holder(): string {
    return this.record.holderIdentity ?? "";
  }
}
