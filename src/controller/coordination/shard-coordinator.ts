/**
 * Instance sharding over coordination.k8s.io Leases: the executor of ShardSlot's state machine.
 * No coordination service but the API server. Every round (retry period, jittered) a replica:
 *  1. lists its group's Leases (one request) and notes, by its *own* monotonic clock, when each
 *     record last changed (lease-record.ts: another machine's renewTime is never trusted);
 *  2. renews its member Lease — replicas find each other through these: a member whose Lease has
 *     not changed for its duration (as observed here) is gone;
 *  3. computes the fair assignment of the fixed shards over the live members (shard-assignment.ts);
 *  4. per shard: acquires a wanted shard whose Lease is free or expired, renews the shards it
 *     holds (each renewal bounded by what is left of the tenure's renew deadline), drains a shard
 *     assigned elsewhere (no new reconciles; the ones in flight finish) and then releases it —
 *     fence closed first, then the Lease written free so the new holder takes it at once.
 * A replica that dies stops renewing: others take its shards after the Lease duration, by which
 * time its fences have been closed for leaseDuration − renewDeadline (if it is merely cut off).
 * Use a client of its own (own rate limit and sockets, no retries, deadline = renew deadline).
 */
import { LABELS } from "../../api/index.js";
import {
  isAlreadyExists,
  isConflict,
  type KubeObject,
  type RequestControl,
  type WriteFence,
} from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import { systemClock, type Clock } from "../clock/index.js";
import {
  JITTER_FACTOR,
  microTime,
  ObservedLease,
  validateLeaseTiming,
  type LeaseSpec,
  type LeaseTiming,
} from "./lease-record.js";
import { assignShards, hash32, shardOf, shardsFor } from "./shard-assignment.js";
import { decideShard, SHARD_PHASES, ShardSlot } from "./shard-slot.js";

const LEASE_API = "coordination.k8s.io/v1";

/** The three Lease calls the coordinator makes (a KubeClient adapter, or a simulation in tests). */
export interface LeaseApi {
  list(namespace: string, labelSelector: string): Promise<KubeObject[]>;
  create(lease: KubeObject, control: RequestControl): Promise<KubeObject>;
  replace(lease: KubeObject, control: RequestControl): Promise<KubeObject>;
}

export interface ShardCoordinatorOptions {
  readonly api: LeaseApi;
  readonly logger: Logger;
  readonly namespace: string;
  /** Prefix of the Lease names and value of their group label: replicas with the same group share. */
  readonly group: string;
  /** Unique per process: a restarted replica must not inherit a dead one's tenures by name. */
  readonly identity: string;
  readonly shardCount: number;
  readonly timing: LeaseTiming;
  /** Time and timers (default: the system's; simulations drive virtual time). */
  readonly clock?: Clock;
  readonly random?: () => number;
}

/** An admitted reconcile: write through `fence`, call leave() when done. */
export interface ShardTicket {
  readonly shard: number;
  readonly fence: WriteFence;
  leave(): void;
}

export interface ShardCoordinator {
  readonly shardCount: number;
  readonly identity: string;
  shardOf(key: string): number;
  /**
   * Calls `listener` whenever this replica starts a tenure of a shard (enqueue its instances) —
   * every tenure, also one that follows a lapsed tenure of the same shard in the same round
   * (reconciles refused while the fence was closed are only ever retried from here).
   */
  onAcquired(listener: (shard: number) => void): void;
  /** Calls `listener` after the set of shards in a tenure changed (a sharded cache re-selects). */
  onHeldChanged(listener: () => void): void;
  /** Admits a reconcile of `key` while this replica holds its shard (and is not handing it over). */
  admit(key: string): ShardTicket | undefined;
  /** Shards in a tenure right now (held or draining). */
  held(): number[];
  /** The fence of this replica's current tenure of `shard`, if any (tests, diagnostics). */
  tenureFence(shard: number): WriteFence | undefined;
  /** Members seen alive in the last round (this replica included). */
  members(): string[];
  /** One round (exported for simulations; the loop calls it). */
  round(): Promise<void>;
  /** Starts the loop of rounds. */
  start(): void;
  /** Drains (admitted reconciles finish, up to a renew deadline), ends the loop, closes every fence, releases every Lease. */
  stop(): Promise<void>;
}

export const shardLeaseName = (group: string, shard: number): string => `${group}-shard-${shard}`;
export const memberLeaseName = (group: string, identity: string): string =>
  `${group}-member-${hash32(identity).toString(16).padStart(8, "0")}`;

export function startShardCoordinator(options: ShardCoordinatorOptions): ShardCoordinator {
  const { api, logger, namespace, group, identity, shardCount, timing } = options;
  validateLeaseTiming(timing);
  if (!Number.isInteger(shardCount) || shardCount < 1 || shardCount > 1024)
    throw new Error(`sharding: the shard count must be an integer from 1 to 1024, got ${shardCount}`);
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const random = options.random ?? Math.random;
  const sleep = (ms: number, signal: AbortSignal) => clock.sleep(ms, signal);
  const slots = Array.from({ length: shardCount }, (_, i) => new ShardSlot(i, now, timing.renewDeadlineMs));
  const observed = new Map<string, ObservedLease>();
  function observe(name: string): ObservedLease {
    let lease = observed.get(name);
    if (lease === undefined) observed.set(name, (lease = new ObservedLease(now)));
    return lease;
  }
  const selector = `${LABELS.shardGroup}=${group}`;
  const memberName = memberLeaseName(group, identity);
  const durationSeconds = Math.round(timing.leaseDurationMs / 1000);
  let live: string[] = [identity];
  const stopping = new AbortController();
  /** Set by stop(): every shard drains, none is taken. */
  let leaving = false;
  let wake = new AbortController();
  let loop: Promise<void> | undefined;
  const listeners: ((shard: number) => void)[] = [];
  const heldListeners: (() => void)[] = [];
  // Listeners hear of a change once, whichever path made it (acquire, release, loss, a missed renewal).
  let lastHeld = "";
  const heldChanged = (): void => {
    const held = tenures().join(",");
    if (held === lastHeld) return;
    lastHeld = held;
    for (const listener of heldListeners) listener();
  };
  const tenures = (): number[] =>
    slots.filter((s) => s.phase === SHARD_PHASES.held || s.phase === SHARD_PHASES.draining).map((s) => s.shard);

  const labels = (role: "shard" | "member") => ({ [LABELS.shardGroup]: group, [LABELS.shardRole]: role });
  const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

  /** Writes `spec` over the listed Lease (or creates it); returns when it was sent, or undefined if someone else won. */
  async function write(
    name: string,
    role: "shard" | "member",
    current: KubeObject | undefined,
    spec: LeaseSpec,
    timeoutMs: number,
  ): Promise<number | undefined> {
    const sentAt = now();
    const control = { timeoutMs: Math.max(1, timeoutMs), signal: stopping.signal };
    try {
      if (current === undefined)
        await api.create(
          { apiVersion: LEASE_API, kind: "Lease", metadata: { name, namespace, labels: labels(role) }, spec },
          control,
        );
      else await api.replace({ ...current, spec }, control);
    } catch (error) {
      if (isConflict(error) || isAlreadyExists(error)) return undefined;
      throw error;
    }
    observe(name).wrote(spec, sentAt);
    return sentAt;
  }

  function claim(previous: LeaseSpec, renewing: boolean): LeaseSpec {
    const wall = microTime(clock.wallNow());
    return {
      ...previous,
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: wall,
      ...(renewing
        ? {}
        : {
            acquireTime: wall,
            leaseTransitions: (previous.leaseTransitions ?? 0) + (previous.holderIdentity === identity ? 0 : 1),
          }),
    };
  }

  async function step(slot: ShardSlot, lease: KubeObject | undefined, wanted: boolean): Promise<void> {
    const name = shardLeaseName(group, slot.shard);
    const spec = (lease?.spec ?? {}) as LeaseSpec;
    const holder = spec.holderIdentity ?? "";
    const decision = decideShard({
      phase: slot.phase,
      inFlight: slot.inFlight,
      identity,
      holder: lease === undefined ? undefined : holder,
      wanted,
      expired: !observe(name).heldByOther(identity),
    });
    if (decision.action === "lose") {
      slot.lose(decision.why);
      logger.warn({ shard: slot.shard, holder }, "lost a shard");
      heldChanged();
      return;
    }
    if (decision.transition === "drain") slot.drain();
    else if (decision.transition === "resume") slot.resume();
    const { action } = decision;
    if (action === "acquire") {
      const sentAt = await write(name, "shard", lease, claim(spec, false), timing.renewDeadlineMs);
      if (sentAt === undefined || stopping.signal.aborted) return;
      slot.acquired(sentAt);
      logger.info({ shard: slot.shard, previousHolder: holder }, "acquired a shard");
      for (const listener of listeners) listener(slot.shard);
      heldChanged();
    } else if (action === "renew") {
      const sentAt = await write(name, "shard", lease, claim(spec, true), slot.deadline - now());
      if (sentAt !== undefined) slot.renewed(sentAt);
    } else if (action === "release") {
      slot.releasing();
      try {
        const wall = microTime(clock.wallNow());
        if (lease !== undefined)
          await write(
            name,
            "shard",
            lease,
            { ...spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: wall, acquireTime: wall },
            timing.renewDeadlineMs,
          );
        logger.info({ shard: slot.shard }, "released a shard");
      } finally {
        slot.released();
        heldChanged();
      }
    }
  }

  async function round(): Promise<void> {
    try {
      await roundSteps();
    } finally {
      // A tenure may also have lapsed while a request hung (the Lease list included).
      heldChanged();
    }
  }

  async function roundSteps(): Promise<void> {
    let items: KubeObject[];
    try {
      items = await api.list(namespace, selector);
    } catch (error) {
      logger.warn({ err: errorText(error) }, "could not list the shard Leases");
      return;
    }
    const byName = new Map(items.map((item) => [item.metadata?.name ?? "", item]));
    for (const [name, item] of byName) observe(name).observe(item.spec ?? {});
    const member = byName.get(memberName);
    await write(
      memberName,
      "member",
      member,
      claim((member?.spec ?? {}) as LeaseSpec, true),
      timing.renewDeadlineMs,
    ).catch((error: unknown) => {
      logger.warn({ err: errorText(error) }, "could not renew the member Lease");
    });
    const others = items
      .filter((item) => item.metadata?.labels?.[LABELS.shardRole] === "member")
      .map((item) => ({
        holder: ((item.spec ?? {}) as LeaseSpec).holderIdentity ?? "",
        name: item.metadata?.name ?? "",
      }))
      .filter((m) => m.holder !== "" && m.holder !== identity && observe(m.name).heldByOther(identity))
      .map((m) => m.holder);
    live = [identity, ...others].sort();
    const mine = shardsFor(assignShards(shardCount, live), identity);
    await Promise.all(
      slots.map(async (slot) => {
        try {
          await step(slot, byName.get(shardLeaseName(group, slot.shard)), mine.has(slot.shard) && !leaving);
        } catch (error) {
          logger.warn(
            { shard: slot.shard, err: errorText(error), msLeft: Math.round(slot.deadline - now()) },
            "shard Lease request failed",
          );
        }
      }),
    );
  }

  async function run(): Promise<void> {
    while (!stopping.signal.aborted) {
      await round();
      wake = new AbortController();
      await sleep(
        timing.retryPeriodMs * (1 + random() * (JITTER_FACTOR - 1)),
        AbortSignal.any([stopping.signal, wake.signal]),
      );
    }
  }

  return {
    shardCount,
    identity,
    shardOf: (key) => shardOf(key, shardCount),
    onAcquired(listener) {
      listeners.push(listener);
    },
    onHeldChanged(listener) {
      heldListeners.push(listener);
    },
    admit(key) {
      const slot = slots[shardOf(key, shardCount)];
      const fence = slot?.admit();
      if (slot === undefined || fence === undefined) return undefined;
      let left = false;
      return {
        shard: slot.shard,
        fence,
        leave() {
          if (left) return;
          left = true;
          slot.leave(fence);
          // A drained shard is released at once instead of at the next round.
          if (slot.phase === SHARD_PHASES.draining && slot.inFlight === 0) wake.abort();
        },
      };
    },
    held: tenures,
    tenureFence: (shard) => {
      const slot = slots[shard];
      return slot?.phase === SHARD_PHASES.held || slot?.phase === SHARD_PHASES.draining ? slot.fence : undefined;
    },
    members: () => [...live],
    round,
    start() {
      loop ??= run().catch((error: unknown) => {
        logger.error({ err: errorText(error) }, "shard coordination stopped on an unexpected error");
      });
    },
    async stop() {
      // Hand over like a rebalance: admit nothing more, let admitted reconciles finish (the
      // rounds keep renewing meanwhile and release each drained shard), within a renew deadline.
      leaving = true;
      for (const slot of slots) slot.drain();
      const since = now();
      const waiting = new AbortController();
      while (
        slots.some((s) => s.phase === SHARD_PHASES.draining && s.inFlight > 0) &&
        now() - since < timing.renewDeadlineMs
      )
        await sleep(50, waiting.signal);
      stopping.abort(new Error("sharding stopped"));
      await loop;
      // Fences first: nothing is written for a shard once its Lease may be free.
      const tenures = slots.filter((s) => s.phase === SHARD_PHASES.held || s.phase === SHARD_PHASES.draining);
      for (const slot of tenures) slot.releasing();
      let items: KubeObject[] = [];
      try {
        items = await api.list(namespace, selector);
      } catch (error) {
        logger.warn({ err: errorText(error) }, "could not release the shard Leases; they expire by themselves");
      }
      const release = async (item: KubeObject): Promise<void> => {
        const spec = (item.spec ?? {}) as LeaseSpec;
        if (spec.holderIdentity !== identity) return;
        const wall = microTime(clock.wallNow());
        await api
          .replace(
            {
              ...item,
              spec: { ...spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: wall, acquireTime: wall },
            },
            { timeoutMs: timing.renewDeadlineMs },
          )
          .catch((error: unknown) => {
            logger.warn({ lease: item.metadata?.name, err: errorText(error) }, "could not release a shard Lease");
          });
      };
      await Promise.all(items.map(release));
      for (const slot of tenures) slot.released();
      if (tenures.length > 0) heldChanged();
    },
  };
}

/** The LeaseApi of a KubeClient (give it a client of its own). */
export function leaseApiOf(client: {
  list: (
    apiVersion: string,
    kind: string,
    options: { namespace: string; labelSelector: string },
  ) => Promise<{ items: KubeObject[] }>;
  create: (o: KubeObject, c: RequestControl) => Promise<KubeObject>;
  replace: (o: KubeObject, c: RequestControl) => Promise<KubeObject>;
}): LeaseApi {
  return {
    list: async (namespace, labelSelector) =>
      (await client.list(LEASE_API, "Lease", { namespace, labelSelector })).items,
    create: (lease, control) => client.create(lease, control),
    replace: (lease, control) => client.replace(lease, control),
  };
}
