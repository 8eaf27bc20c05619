/**
 * Lease-based leader election (coordination.k8s.io/v1) with client-go's semantics: the executor
 * of the state machine in election-machine.ts, which decides everything (when to try, when the
 * fence closes, when leadership is lost). This file only performs its actions: one Lease request
 * at a time (a candidate takes the Lease only when it is free or has not changed for
 * leaseDuration *as observed by this process's own clock*), one wait, the fence's deadline timer.
 * When the deadline passes — even with a request hanging on a dead connection — the fence closes
 * (writes refused, in-flight writes aborted) and `lost` resolves. Use a client of its own (own
 * rate limit, own sockets), never fenced.
 */
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  WriteFence,
  type KubeClient,
  type KubeObject,
  type ObjectRef,
} from "../../kube/index.js";
import type { Logger } from "../../observability/index.js";
import { systemClock, type Clock, type Timer } from "../clock/index.js";
import {
  initialElection,
  stepElection,
  type AttemptOutcome,
  type ElectionAction,
  type ElectionEvent,
  type ElectionState,
} from "./election-machine.js";
import { microTime, ObservedLease, validateLeaseTiming, type LeaseSpec, type LeaseTiming } from "./lease-record.js";

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
  /** Time and timers (default: the system's; tests pass a fake one). */
  readonly clock?: Clock;
  /** Uniform in [0, 1): the retry jitter (tests pass a fixed one). */
  readonly random?: () => number;
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

export function startLeaderElection(options: LeaderElectionOptions): LeaderElection {
  const timing: LeaseTiming = {
    leaseDurationMs: options.leaseDurationMs ?? 15_000,
    renewDeadlineMs: options.renewDeadlineMs ?? 10_000,
    retryPeriodMs: options.retryPeriodMs ?? 2_000,
  };
  validateLeaseTiming(timing);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const now = () => clock.now();
  const fence = options.fence ?? new WriteFence(now);
  const ref = {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    namespace: options.namespace,
    name: options.name,
  } satisfies ObjectRef;
  const lease = `${options.namespace}/${options.name}`;
  const observed = new ObservedLease(now);
  const stopping = new AbortController();
  let state: ElectionState = initialElection;
  let onAcquired!: () => void;
  let onLost!: () => void;
  const acquired = new Promise<void>((resolve) => {
    onAcquired = resolve;
  });
  const lost = new Promise<void>((resolve) => {
    onLost = resolve;
  });
  // Cancels the leader's renewal in flight when its deadline passes.
  let leading = new AbortController();
  let waiting: Timer | undefined;
  let deadline: Timer | undefined;
  let attempt: Promise<void> = Promise.resolve();

  /** One read and, if we may, one write of the Lease. */
  async function tryAcquireOrRenew(timeoutMs: number, signal: AbortSignal): Promise<AttemptOutcome> {
    const control = { timeoutMs, signal };
    const refused = (): AttemptOutcome => ({ kind: "refused", holder: observed.holder, lease: leaseView() });
    let current: KubeObject;
    try {
      current = await options.client.get(ref, control);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const sentAt = now();
      const wall = microTime(clock.wallNow());
      const spec: LeaseSpec = {
        holderIdentity: options.identity,
        leaseDurationSeconds: Math.round(timing.leaseDurationMs / 1000),
        acquireTime: wall,
        renewTime: wall,
        leaseTransitions: 0,
      };
      try {
        await options.client.create(
          { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name, namespace: ref.namespace }, spec },
          control,
        );
      } catch (createError) {
        if (isAlreadyExists(createError)) return refused();
        throw createError;
      }
      observed.wrote(spec, sentAt);
      return { kind: "written", sentAt };
    }
    const spec = (current.spec ?? {}) as LeaseSpec;
    observed.observe(spec);
    if (observed.heldByOther(options.identity)) return refused();
    const renewing = spec.holderIdentity === options.identity && state.phase === "leader";
    const wall = microTime(clock.wallNow());
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: options.identity,
      leaseDurationSeconds: Math.round(timing.leaseDurationMs / 1000),
      renewTime: wall,
      ...(renewing
        ? {}
        : {
            acquireTime: wall,
            leaseTransitions: (spec.leaseTransitions ?? 0) + (spec.holderIdentity === options.identity ? 0 : 1),
          }),
    };
    const sentAt = now();
    try {
      await options.client.replace({ ...current, spec: next }, control);
    } catch (error) {
      if (isConflict(error)) return refused();
      throw error;
    }
    observed.wrote(next, sentAt);
    return { kind: "written", sentAt };
  }

  const leaseView = () => ({
    heldByOther: observed.heldByOther(options.identity),
    msUntilExpiry: observed.msUntilExpiry(),
  });
  const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

  function dispatch(event: ElectionEvent): void {
    const step = stepElection(state, event, { now: now(), jitter: random() }, timing);
    const wasLeader = state.phase === "leader";
    state = step.state;
    for (const action of step.actions) perform(action, wasLeader);
  }

  function perform(action: ElectionAction, wasLeader: boolean): void {
    switch (action.type) {
      case "attempt": {
        const signal = state.phase === "leader" ? AbortSignal.any([stopping.signal, leading.signal]) : stopping.signal;
        attempt = tryAcquireOrRenew(action.timeoutMs, signal)
          .catch((error: unknown): AttemptOutcome => ({ kind: "failed", error: errorText(error), lease: leaseView() }))
          .then((outcome) => {
            dispatch({ type: "attempted", outcome });
          })
          .catch((error: unknown) => {
            unexpected(error);
          });
        return;
      }
      case "wait":
        waiting = clock.setTimer(() => {
          dispatch({ type: "tick" });
        }, action.ms);
        return;
      case "hold":
        fence.holdUntil(action.until);
        deadline?.cancel();
        deadline = clock.setTimer(
          () => {
            dispatch({ type: "deadline" });
          },
          Math.max(0, action.until - now()),
        );
        return;
      case "acquired":
        leading = new AbortController();
        options.logger.info({ identity: options.identity, lease }, "became leader");
        onAcquired();
        return;
      case "refused":
        options.logger.debug(
          { identity: options.identity, lease, holder: action.holder },
          "lease held by another candidate",
        );
        return;
      case "failed":
        if (wasLeader)
          options.logger.warn(
            { err: action.error, lease, msLeft: Math.round(state.fenceDeadline - now()) },
            "lease renewal failed",
          );
        else options.logger.warn({ err: action.error, lease }, "leader election request failed");
        return;
      case "lost":
        waiting?.cancel();
        deadline?.cancel();
        fence.close(action.why);
        leading.abort(new Error(action.why));
        options.logger.error({ identity: options.identity, lease, reason: action.why }, "lost leadership");
        onLost();
        return;
    }
  }

  function unexpected(error: unknown): void {
    options.logger.error({ err: errorText(error), lease }, "leader election stopped on an unexpected error");
    if (state.phase === "leader") perform({ type: "lost", why: "leader election failed" }, true);
    state = { ...state, phase: "stopped" };
  }

  async function release(): Promise<void> {
    try {
      const current = await options.client.get(ref, { timeoutMs: timing.renewDeadlineMs });
      const spec = (current.spec ?? {}) as LeaseSpec;
      const wall = microTime(clock.wallNow());
      // Free, with the shortest duration, so a standby takes over at once instead of waiting for expiry.
      if (spec.holderIdentity === options.identity)
        await options.client.replace(
          {
            ...current,
            spec: { ...spec, holderIdentity: "", leaseDurationSeconds: 1, renewTime: wall, acquireTime: wall },
          },
          { timeoutMs: timing.renewDeadlineMs },
        );
    } catch (error) {
      options.logger.warn({ err: errorText(error), lease }, "could not release the leader lease");
    }
  }

  dispatch({ type: "tick" });

  return {
    acquired,
    lost,
    fence,
    get isLeader() {
      return state.phase === "leader" && fence.open;
    },
    async stop() {
      const wasLeader = state.phase === "leader";
      dispatch({ type: "stop" });
      waiting?.cancel();
      deadline?.cancel();
      stopping.abort(new Error("leader election stopped"));
      await attempt;
      if (!wasLeader) return;
      // Nothing may be written for us once the Lease is free.
      fence.close("released the lease");
      await release();
    },
  };
}
