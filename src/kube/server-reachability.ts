/**
 * Notices when the API server comes back after an outage, with one shared probe per client
 * instead of every informer guessing through its own backoff: while someone waits, /readyz is
 * probed every probeIntervalMs; when a probe succeeds after one failed, every waiter wakes at
 * once. Without an outage seen by the probe, waiters are not woken (their backoff runs on), so a
 * server that answers but fails one watch can never cause a reconnect storm.
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
      const drop = (): void => { this.waiters.delete(wake); };
      signal.addEventListener("abort", drop, { once: true });
      this.waiters.add(wake);
      if (!this.probing) void this.probeLoop();
    });
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
        if (!up) sawDown = true;
        else if (sawDown) {
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
