/**
 * The rollout planner: from the policy, the instances, the revisions, the RGD's verdicts and the
 * time, which instances move now and what the rollout's state is (docs/design/rollouts.md). Pure
 * and total; one call per planning round, nothing remembered between calls — so a restart or a
 * new leader plans exactly the same from the same objects.
 *
 * One round, in order:
 *   1. every instance that cannot stay where it is: unrecorded (adopted where it runs, or the
 *      target), on a revision that is gone (the target), on a rejected one (back to the revision
 *      before it — at once, uncapped: waiting is what hurts); pins, honoured or reported;
 *   2. pinned instances that are elsewhere, within the cap;
 *   3. the first wave not wholly healthy at the target: its gate judged (a member moved more than
 *      readyWithin ago and still not healthy fails it: halt, and with onFailure Rollback reject
 *      the target and return its instances), then — unless halted, paused or between waves — its
 *      members behind the target move, as many as the cap leaves.
 */
import type { MaxUpdating, RolloutPolicy } from "../../graph/index.js";
import { fallbackBelow, judgePin, revisionView, type RevisionView } from "./revision-choice.js";
import { rolloutCondition } from "./propagated-condition.js";
import type {
  FailedInstance,
  RejectedRevision,
  RolloutHalt,
  RolloutInput,
  RolloutInstance,
  RolloutMove,
  RolloutPhase,
  RolloutPlan,
  WaveRef,
} from "./rollout-state.js";
import { assignWaves } from "./wave-membership.js";

/**
 * The revision an instance runs: without a policy always the newest (kro's behaviour, and an RGD
 * without spec.rollout behaves exactly as before); with one, what the rollout assigned it, or the
 * newest while nothing is assigned yet.
 */
export function runningRevision(
  policy: RolloutPolicy | undefined,
  assigned: number | undefined,
  newest: number,
): number {
  return policy === undefined || assigned === undefined ? newest : assigned;
}

/** The cap on instances updating at once: a count, or a share of all instances rounded down, at least 1. */
export function updatingCap(maxUpdating: MaxUpdating, total: number): number {
  if ("count" in maxUpdating) return maxUpdating.count;
  return Math.max(1, Math.floor((maxUpdating.percent * total) / 100));
}

/** Undefined without a policy: nothing to plan, every instance runs the newest revision. */
export function planRollout(input: RolloutInput): RolloutPlan | undefined {
  const policy = input.policy;
  if (policy === undefined) return undefined;
  return new Round(policy, input).plan();
}

class Round {
  private readonly view: RevisionView;
  private readonly moves = new Map<string, RolloutMove>();
  private readonly pinProblems: FailedInstance[] = [];
  private readonly pinned = new Map<string, number>();
  private readonly maxUpdating: number;
  private readonly names: Map<string, string>;

  constructor(
    private readonly policy: RolloutPolicy,
    private readonly input: RolloutInput,
  ) {
    this.view = revisionView(input.revisions, input.control.rejected);
    this.maxUpdating = updatingCap(policy.maxUpdating, input.instances.length);
    this.names = new Map(
      input.instances.map((i) => [i.key, i.namespace === undefined ? i.name : `${i.namespace}/${i.name}`]),
    );
  }

  plan(): RolloutPlan {
    const target = this.view.target;
    if (target === undefined) return this.result(undefined, "NoTarget", {});
    const inRollout = this.settle(target);
    this.movePinned();

    const { policy, input } = this;
    const waves = assignWaves(policy, inRollout, target, (i) => this.after(i) === target).filter(
      (w) => w.members.length > 0,
    );
    const of = waves.length;
    let previousDoneAt: number | undefined;
    for (const wave of waves) {
      const done = (i: RolloutInstance): boolean => this.healthyAt(i, target);
      if (wave.members.every(done)) {
        previousDoneAt = Math.max(...wave.members.map((m) => m.healthyAt ?? 0));
        continue;
      }
      const ref: WaveRef = { index: wave.index, name: wave.name, of };
      const halted = input.control.halted?.revision === target ? input.control.halted : undefined;
      if (halted !== undefined) return this.result(target, "Halted", { wave: ref });

      const judged = this.judgeGate(wave.members, target);
      if (judged.failing.length > 0) return this.fail(target, ref, judged.failing);

      const pauseEnds = previousDoneAt === undefined ? undefined : previousDoneAt + policy.pauseBetweenWavesMs;
      if (pauseEnds !== undefined && input.now < pauseEnds)
        return this.result(target, "WaitingBetweenWaves", {
          wave: ref,
          nextCheckAt: min(pauseEnds, judged.nextDeadline),
        });
      if (input.control.paused) return this.result(target, "Paused", { wave: ref, nextCheckAt: judged.nextDeadline });

      let budget = this.maxUpdating - this.updatingCount(target);
      let nextCheckAt = judged.nextDeadline;
      for (const member of wave.members) {
        if (budget <= 0) break;
        if (this.after(member) === target) continue;
        this.move(member, target, "wave");
        nextCheckAt = min(nextCheckAt, input.now + policy.readyWithinMs);
        budget--;
      }
      return this.result(target, "Progressing", { wave: ref, nextCheckAt });
    }
    return this.result(target, "Complete", {});
  }

  /** Step 1: adoptions, rollbacks, and the pins' verdicts. Returns the instances the waves move. */
  private settle(target: number): RolloutInstance[] {
    const inRollout: RolloutInstance[] = [];
    for (const instance of this.input.instances) {
      if (instance.pin !== undefined) {
        const verdict = judgePin(instance.pin, this.policy, this.view);
        if (verdict.honoured) {
          this.pinned.set(instance.key, verdict.revision);
          continue;
        }
        this.pinProblems.push({ key: instance.key, reason: verdict.problem });
      }
      inRollout.push(instance);
      const at = current(instance);
      if (at === undefined || !this.view.live.includes(at)) this.move(instance, target, "adopt");
      else if (this.view.rejected.has(at)) this.move(instance, fallbackBelow(this.view, at) ?? target, "rollback");
      // Runs a revision the rollout never recorded (the policy is new): recorded where it is.
      else if (instance.assigned === undefined) this.move(instance, at, "adopt");
    }
    return inRollout;
  }

  /** Step 2: pinned instances that run another revision, first in line for the cap. */
  private movePinned(): void {
    const target = this.view.target ?? 0;
    let budget = this.maxUpdating - this.updatingCount(target);
    for (const instance of this.input.instances) {
      const pin = this.pinned.get(instance.key);
      if (pin === undefined || current(instance) === pin) continue;
      if (budget <= 0) break;
      this.move(instance, pin, "pin");
      budget--;
    }
  }

  /** Members moved to the target and still not healthy: past their deadline they fail the gate. */
  private judgeGate(
    members: readonly RolloutInstance[],
    target: number,
  ): { failing: FailedInstance[]; nextDeadline: number | undefined } {
    const failing: FailedInstance[] = [];
    let nextDeadline: number | undefined;
    for (const member of members) {
      if (this.moves.has(member.key) || member.assigned !== target || member.assignedAt === undefined) continue;
      if (this.healthyAt(member, target)) continue;
      const deadline = Math.max(member.assignedAt, this.input.control.resumedAt ?? 0) + this.policy.readyWithinMs;
      if (this.input.now < deadline) {
        nextDeadline = min(nextDeadline, deadline);
        continue;
      }
      const why =
        member.evaluated !== target ? `not yet evaluated at revision ${target}` : (member.unhealthy ?? "not Ready");
      failing.push({
        key: member.key,
        reason: `not healthy at revision ${target} within ${formatMs(this.policy.readyWithinMs)}: ${why}`,
      });
    }
    return { failing, nextDeadline };
  }

  /**
   * The gate failed: halt, and with onFailure Rollback reject the target and return everything on
   * it — unless the target is itself where a rollback returned to (a newer revision is rejected):
   * a rollback is never rolled back automatically, or one broken cluster would walk every
   * instance down the whole history.
   */
  private fail(target: number, wave: WaveRef, failing: FailedInstance[]): RolloutPlan {
    const halt: RolloutHalt = { revision: target, wave: wave.index, at: this.input.now, instances: failing };
    const returnedTo = this.view.live[0] !== target;
    if (this.policy.onFailure !== "Rollback" || returnedTo) return this.result(target, "Halted", { wave, halt });
    const reject: RejectedRevision = { revision: target, by: "gate", at: this.input.now };
    const back = fallbackBelow(this.view, target);
    if (back !== undefined)
      for (const instance of this.input.instances)
        if (this.after(instance) === target) this.move(instance, back, "rollback");
    return this.result(target, "RolledBack", { wave, halt, reject, ...(back === undefined ? {} : { back }) });
  }

  private move(instance: RolloutInstance, to: number, why: RolloutMove["why"]): void {
    const from = current(instance);
    this.moves.set(instance.key, { key: instance.key, ...(from === undefined ? {} : { from }), to, why });
  }

  /** The revision an instance is assigned once this round's moves are written. */
  private after(instance: RolloutInstance): number | undefined {
    return this.moves.get(instance.key)?.to ?? current(instance);
  }

  private healthyAt(instance: RolloutInstance, revision: number): boolean {
    return this.after(instance) === revision && instance.evaluated === revision && instance.healthyAt !== undefined;
  }

  /**
   * Moved and not yet healthy, this round's moves included: assigned one revision and still
   * evaluated with another, or assigned the target and not healthy there.
   */
  private updatingCount(target: number): number {
    let count = 0;
    for (const instance of this.input.instances) {
      const assigned = this.moves.get(instance.key)?.to ?? instance.assigned;
      if (assigned === undefined) continue;
      if (instance.evaluated !== assigned || (assigned === target && instance.healthyAt === undefined)) count++;
    }
    return count;
  }

  private result(
    target: number | undefined,
    phase: RolloutPhase,
    extra: {
      wave?: WaveRef;
      nextCheckAt?: number | undefined;
      halt?: RolloutHalt;
      reject?: RejectedRevision;
      back?: number;
    },
  ): RolloutPlan {
    const instances = this.input.instances;
    const updated = target === undefined ? 0 : instances.filter((i) => this.healthyAt(i, target)).length;
    const counts = {
      total: instances.length,
      updated,
      updating: target === undefined ? 0 : this.updatingCount(target),
      maxUpdating: this.maxUpdating,
    };
    const halt = extra.halt ?? (phase === "Halted" ? this.input.control.halted : undefined);
    const condition = rolloutCondition({
      phase,
      target,
      newest: this.view.live[0],
      rejected: this.input.control.rejected,
      counts,
      pinned: this.pinned.size,
      ...(extra.wave === undefined ? {} : { wave: extra.wave }),
      ...(halt === undefined ? {} : { halt }),
      ...(extra.back === undefined ? {} : { back: extra.back }),
      ...(extra.nextCheckAt === undefined ? {} : { nextCheckAt: extra.nextCheckAt }),
      nameOf: (key) => this.names.get(key) ?? key,
    });
    return {
      target,
      phase,
      ...(extra.wave === undefined ? {} : { wave: extra.wave }),
      moves: [...this.moves.values()],
      pinProblems: this.pinProblems,
      ...(extra.halt === undefined ? {} : { halt: extra.halt }),
      ...(extra.reject === undefined ? {} : { reject: extra.reject }),
      counts,
      ...(extra.nextCheckAt === undefined ? {} : { nextCheckAt: extra.nextCheckAt }),
      condition,
    };
  }
}

/** The revision an instance is on, as recorded: assigned, else the one its status was computed with. */
function current(instance: RolloutInstance): number | undefined {
  return instance.assigned ?? instance.evaluated;
}

function min(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/** 600000 → "10m", 5400000 → "1h30m", 1500 → "1.5s": as the duration was probably written. */
export function formatMs(ms: number): string {
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  const text = `${hours > 0 ? `${hours}h` : ""}${minutes > 0 ? `${minutes}m` : ""}${seconds > 0 ? `${seconds}s` : ""}`;
  return text === "" ? "0s" : text;
}
