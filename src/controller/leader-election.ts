/**
 * Lease-based leader election (coordination.k8s.io/v1), as client-go does it: take the Lease
 * when it is free or expired, renew it every retry period, and report loss when renewing failed
 * for longer than the renew deadline — the caller then stops writing (and usually exits).
 */
import { isAlreadyExists, isConflict, isNotFound, type KubeClient, type KubeObject } from "../kube/index.js";
import type { Logger } from "../observability/index.js";

export interface LeaderElectionOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
}

export interface LeaderElection {
  /** Resolves when this process holds the lease (never, if stopped first). */
  readonly acquired: Promise<void>;
  /** Resolves when leadership is lost after having been acquired. */
  readonly lost: Promise<void>;
  /** Stops renewing and releases the lease if held. */
  stop(): Promise<void>;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

const microTime = (ms: number) => new Date(ms).toISOString().replace("Z", "000Z");

export function startLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const duration = options.leaseDurationMs ?? 15_000;
  const deadline = options.renewDeadlineMs ?? 10_000;
  const retry = options.retryPeriodMs ?? 2_000;
  const ref = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", namespace: options.namespace, name: options.name };
  // An object, not a let: stop() flips it while tick() is awaiting.
  const state = { stopped: false };
  let leader = false;
  let timer: NodeJS.Timeout | undefined;
  let onAcquired!: () => void;
  let onLost!: () => void;
  const acquired = new Promise<void>((resolve) => { onAcquired = resolve; });
  const lost = new Promise<void>((resolve) => { onLost = resolve; });
  let lastRenew = 0;

  async function tryAcquireOrRenew(): Promise<boolean> {
    const now = Date.now();
    let lease: KubeObject;
    try {
      lease = await options.client.get(ref);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const spec: LeaseSpec = { holderIdentity: options.identity, leaseDurationSeconds: Math.round(duration / 1000), acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 };
      try {
        await options.client.create({ apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace }, spec });
        return true;
      } catch (createError) {
        if (isAlreadyExists(createError)) return false;
        throw createError;
      }
    }
    const spec = (lease.spec ?? {}) as LeaseSpec;
    const held = spec.holderIdentity !== undefined && spec.holderIdentity !== "" && spec.holderIdentity !== options.identity;
    const expires = Date.parse(spec.renewTime ?? "") + (spec.leaseDurationSeconds ?? 0) * 1000;
    if (held && Number.isFinite(expires) && expires > now) return false;
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: options.identity,
      leaseDurationSeconds: Math.round(duration / 1000),
      renewTime: microTime(now),
      ...(spec.holderIdentity === options.identity ? {} : { acquireTime: microTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
    };
    try {
      await options.client.replace({ ...lease, spec: next });
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
  }

  async function tick(): Promise<void> {
    if (state.stopped) return;
    let ok = false;
    try {
      ok = await tryAcquireOrRenew();
    } catch (error) {
      options.logger.warn({ err: error instanceof Error ? error.message : String(error), lease: `${ref.namespace}/${ref.name}` }, "leader election request failed");
    }
    if (ok) {
      lastRenew = Date.now();
      if (!leader) {
        leader = true;
        options.logger.info({ identity: options.identity, lease: `${ref.namespace}/${ref.name}` }, "became leader");
        onAcquired();
      }
    } else if (leader && Date.now() - lastRenew > deadline) {
      leader = false;
      state.stopped = true;
      options.logger.error({ identity: options.identity }, "lost leadership");
      onLost();
      return;
    }
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have run during the await above
    if (!state.stopped) timer = setTimeout(() => { void tick(); }, retry);
  }
  void tick();

  return {
    acquired,
    lost,
    async stop() {
      state.stopped = true;
      clearTimeout(timer);
      if (!leader) return;
      leader = false;
      try {
        const lease = await options.client.get(ref);
        const spec = (lease.spec ?? {}) as LeaseSpec;
        // Release so a standby takes over at once instead of waiting for expiry.
        if (spec.holderIdentity === options.identity) await options.client.replace({ ...lease, spec: { ...spec, holderIdentity: "", leaseDurationSeconds: 1 } });
      } catch (error) {
        options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, "could not release the leader lease");
      }
    },
  };
}
