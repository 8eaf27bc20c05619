/**
 * Lease-based leader election (coordination.k8s.io/v1) with client-go's semantics:
 * - a candidate tries every retryPeriod (jittered) and takes the Lease only when it is free or
 *   when it has not changed for leaseDuration *as observed by this process's own clock*;
 * - a leader renews every retryPeriod; each renewal request is bounded by what is left of its
 *   renew deadline, and the leader holds its write fence only until (last successful renewal
 *   sent + renewDeadline). When that passes — even with a request hanging on a dead connection —
 *   the fence closes (writes refused, in-flight writes aborted) and `lost` resolves.
 * Because renewDeadline < leaseDuration and a standby counts leaseDuration from when it saw the
 * last renewal (which was sent before it was seen), the old leader stops writing before any
 * standby may acquire. Use a client of its own (own rate limit, own sockets), never fenced.
 */
import { isAlreadyExists, isConflict, isNotFound, WriteFence, type KubeClient, type KubeObject, type ObjectRef } from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import { JITTER_FACTOR, microTime, ObservedLease, validateLeaseTiming, type LeaseSpec, type LeaseTiming } from "./lease-record.js";

export interface LeaderElectionOptions {
  /** A client used for nothing else: the Lease must never wait behind the controller's work. */
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  /** Held while leading; give the same fence to every client that writes for the leader. */
  readonly fence?: WriteFence;
  /** Monotonic clock in ms (tests). */
  readonly now?: () => number;
}

export interface LeaderElection {
  /** Resolves when this process holds the lease (never, if stopped first). */
  readonly acquired: Promise<void>;
  /** Resolves when leadership is lost after having been acquired (the fence is closed by then). */
  readonly lost: Promise<void>;
  /** Open exactly while this process may write as the leader. */
  readonly fence: WriteFence;
  readonly isLeader: boolean;
  /** Stops; a leader closes its fence first, then releases the Lease so a standby takes over at once. */
  stop(): Promise<void>;
}

type Phase = "candidate" | "leader" | "done";

/** A candidate that wakes at the expiry it computed looks a moment later, so the lease has surely run out. */
const EXPIRY_MARGIN_MS = 20;

export function startLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const timing: LeaseTiming = {
    leaseDurationMs: options.leaseDurationMs ?? 15_000,
    renewDeadlineMs: options.renewDeadlineMs ?? 10_000,
    retryPeriodMs: options.retryPeriodMs ?? 2_000,
  };
  validateLeaseTiming(timing);
  const now = options.now ?? (() => performance.now());
  const fence = options.fence ?? new WriteFence(now);
  const ref = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", namespace: options.namespace, name: options.name } satisfies ObjectRef;
  const lease = `${options.namespace}/${options.name}`;
  const observed = new ObservedLease(now);
  const stopping = new AbortController();
  const state: { phase: Phase; fenceDeadline: number; fenceTimer: NodeJS.Timeout | undefined } = { phase: "candidate", fenceDeadline: -Infinity, fenceTimer: undefined };
  let onAcquired!: () => void;
  let onLost!: () => void;
  const acquired = new Promise<void>((resolve) => { onAcquired = resolve; });
  const lost = new Promise<void>((resolve) => { onLost = resolve; });
  // Cancels the leader's renewal in flight when its deadline passes.
  let leading = new AbortController();

  /** One read and, if we may, one write of the Lease. Returns when the write was sent, or undefined. */
  async function tryAcquireOrRenew(timeoutMs: number, signal: AbortSignal): Promise<number | undefined> {
    const control = { timeoutMs, signal };
    let current: KubeObject;
    try {
      current = await options.client.get(ref, control);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const sentAt = now();
      const spec: LeaseSpec = { holderIdentity: options.identity, leaseDurationSeconds: Math.round(timing.leaseDurationMs / 1000), acquireTime: microTime(Date.now()), renewTime: microTime(Date.now()), leaseTransitions: 0 };
      try {
        await options.client.create({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace }, spec }, control);
      } catch (createError) {
        if (isAlreadyExists(createError)) return undefined;
        throw createError;
      }
      observed.wrote(spec, sentAt);
      return sentAt;
    }
    const spec = (current.spec ?? {}) as LeaseSpec;
    observed.observe(spec);
    if (observed.heldByOther(options.identity)) return undefined;
    const renewing = spec.holderIdentity === options.identity && state.phase === "leader";
    const wall = microTime(Date.now());
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: options.identity,
      leaseDurationSeconds: Math.round(timing.leaseDurationMs / 1000),
      renewTime: wall,
      ...(renewing ? {} : { acquireTime: wall, leaseTransitions: (spec.leaseTransitions ?? 0) + (spec.holderIdentity === options.identity ? 0 : 1) }),
    };
    const sentAt = now();
    try {
      await options.client.replace({ ...current, spec: next }, control);
    } catch (error) {
      if (isConflict(error)) return undefined;
      throw error;
    }
    observed.wrote(next, sentAt);
    return sentAt;
  }

  /** Extends the fence to sentAt + renewDeadline and arms the timer that ends leadership then. */
  function holdUntilDeadline(sentAt: number): void {
    state.fenceDeadline = sentAt + timing.renewDeadlineMs;
    fence.holdUntil(state.fenceDeadline);
    clearTimeout(state.fenceTimer);
    state.fenceTimer = setTimeout(() => { lose("could not renew the lease within the renew deadline"); }, Math.max(0, state.fenceDeadline - now()));
  }

  function lose(why: string): void {
    if (state.phase !== "leader") return;
    state.phase = "done";
    clearTimeout(state.fenceTimer);
    fence.close(why);
    leading.abort(new Error(why));
    options.logger.error({ identity: options.identity, lease, reason: why }, "lost leadership");
    onLost();
  }

  const jittered = () => timing.retryPeriodMs * (1 + Math.random() * (JITTER_FACTOR - 1));
  const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
  const pause = (ms: number) => new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stopping.signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stopping.signal.addEventListener("abort", done, { once: true });
  });

  /**
   * A candidate looks again after a jittered retry period — or right when the lease it saw runs
   * out by its own clock, if that is sooner (client-go waits for its next tick: up to 1.2 retry
   * periods more of failover). Safety is unchanged: expiry is still judged on local observation.
   */
  function nextAttemptIn(): number {
    const retry = jittered();
    if (!observed.heldByOther(options.identity)) return retry;
    const untilExpiry = observed.msUntilExpiry();
    return untilExpiry < retry ? untilExpiry + EXPIRY_MARGIN_MS : retry;
  }

  async function campaign(): Promise<void> {
    while (state.phase === "candidate") {
      try {
        const sentAt = await tryAcquireOrRenew(timing.renewDeadlineMs, stopping.signal);
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have run during the await
        if (sentAt !== undefined && state.phase === "candidate") {
          state.phase = "leader";
          leading = new AbortController();
          holdUntilDeadline(sentAt);
          options.logger.info({ identity: options.identity, lease }, "became leader");
          onAcquired();
          return;
        }
        if (sentAt === undefined) options.logger.debug({ identity: options.identity, lease, holder: observed.holder }, "lease held by another candidate");
      } catch (error) {
        options.logger.warn({ err: errorText(error), lease }, "leader election request failed");
      }
      await pause(nextAttemptIn());
    }
  }

  async function renewLoop(): Promise<void> {
    while (state.phase === "leader") {
      await pause(jittered());
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() or lose() may have run during the pause
      if (state.phase !== "leader") return;
      const remaining = state.fenceDeadline - now();
      if (remaining <= 0) {
        lose("could not renew the lease within the renew deadline");
        return;
      }
      try {
        const sentAt = await tryAcquireOrRenew(remaining, AbortSignal.any([stopping.signal, leading.signal]));
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the phase may have changed during the await
        if (state.phase !== "leader") return;
        if (sentAt === undefined) {
          lose(`the lease was taken by ${observed.holder || "another candidate"}`);
          return;
        }
        holdUntilDeadline(sentAt);
      } catch (error) {
        options.logger.warn({ err: errorText(error), lease, msLeft: Math.round(state.fenceDeadline - now()) }, "lease renewal failed");
      }
    }
  }

  const loop = (async () => {
    await campaign();
    await renewLoop();
  })().catch((error: unknown) => { options.logger.error({ err: errorText(error), lease }, "leader election stopped on an unexpected error"); lose("leader election failed"); });

  async function release(): Promise<void> {
    try {
      const current = await options.client.get(ref, { timeoutMs: timing.renewDeadlineMs });
      const spec = (current.spec ?? {}) as LeaseSpec;
      const wall = microTime(Date.now());
      // Free, with the shortest duration, so a standby takes over at once instead of waiting for expiry.
      if (spec.holderIdentity === options.identity) await options.client.replace({ ...current, spec: { ...spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: wall, acquireTime: wall } }, { timeoutMs: timing.renewDeadlineMs });
    } catch (error) {
      options.logger.warn({ err: errorText(error), lease }, "could not release the leader lease");
    }
  }

  return {
    acquired,
    lost,
    fence,
    get isLeader() { return state.phase === "leader" && fence.open; },
    async stop() {
      const wasLeader = state.phase === "leader";
      state.phase = "done";
      clearTimeout(state.fenceTimer);
      stopping.abort(new Error("leader election stopped"));
      await loop;
      if (!wasLeader) return;
      // Nothing may be written for us once the Lease is free.
      fence.close("released the lease");
      await release();
    },
  };
}
