/**
 * Notices when the API server comes back after an outage, with one shared probe per client
 * instead of every informer guessing through its own backoff: while someone waits, /readyz is
 * probed every probeIntervalMs; when a probe succeeds after one failed, every waiter wakes at
 * once. Without an outage seen by the probe, waiters are not woken (their backoff runs on), so a
 * server that answers but fails one watch can never cause a reconnect storm.
 *
 * It also remembers when the server last came back (recoveredAt): a kube-apiserver that answers
 * /readyz still fails some requests for a moment (a watch gets 429 "storage is (re)initializing"
 * or 503 "not all HTTP paths installed"), and a client that failed just then must retry within
 * a fraction of a second, not sleep the backoff it grew while the server was away.
 */
import { sleep } from "./backoff.js";

export interface ReachabilityOptions {
  /** One probe: resolves true when the server answered as ready. Must not throw. */
  readonly probe: () => Promise<boolean>;
  readonly probeIntervalMs?: number;
}

export class ServerReachability {
  private readonly waiters = new Set<() => void>();
  private probing = false;
  private readonly stop = new AbortController();
  private recovered: number | undefined;

  constructor(private readonly options: ReachabilityOptions) {}

  /** Resolves when the server answers again after a failed probe; pending until then or until signal aborts. */
  whenBack(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted || this.stop.signal.aborted) return;
      const wake = (): void => {
        this.waiters.delete(wake);
        signal.removeEventListener("abort", drop);
        resolve();
      };
      const drop = (): void => {
        this.waiters.delete(wake);
      };
      signal.addEventListener("abort", drop, { once: true });
      this.waiters.add(wake);
      if (!this.probing) void this.probeLoop();
    });
  }

  /** When a probe last saw the server back after an outage (Date.now()); cleared by a failed probe. */
  get recoveredAt(): number | undefined {
    return this.recovered;
  }

  close(): void {
    this.stop.abort();
    this.waiters.clear();
  }

  private async probeLoop(): Promise<void> {
    this.probing = true;
    let sawDown = false;
    try {
      while (this.waiters.size > 0 && !this.stop.signal.aborted) {
        const up = await this.options.probe();
        if (!up) {
          sawDown = true;
          this.recovered = undefined;
        } else if (sawDown) {
          this.recovered = Date.now();
          for (const wake of [...this.waiters]) wake();
          sawDown = false;
        } else return; // up all along: nothing to announce; a later failure starts a new loop
        await sleep(this.options.probeIntervalMs ?? 250, this.stop.signal).catch(() => undefined);
      }
    } finally {
      this.probing = false;
    }
  }
}
