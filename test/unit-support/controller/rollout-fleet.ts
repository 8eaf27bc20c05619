/**
 * A fleet of instances for the rollout planner's tests, in fake time: each round plans, records
 * the verdicts on the "RGD" and writes the moves on the "instances" as the controller will; the
 * instances then reconcile (evaluated := assigned) and turn healthy after a delay their behaviour
 * at that revision decides — or never. Every move is kept in an audit, and the fleet's own ground
 * truth (not the planner's view) says how many instances were updating at each moment.
 */
import type { RolloutPolicy } from "../../../src/graph/index.js";
import {
  planRollout,
  type RejectedRevision,
  type RolloutControl,
  type RolloutHalt,
  type RolloutInstance,
  type RolloutMove,
  type RolloutPlan,
} from "../../../src/controller/rollout/index.js";

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Milliseconds until healthy after being evaluated at `revision`, or "never" (with why). */
export type Behaviour = (instance: RolloutInstance, revision: number) => number | { never: string };

export interface AuditedMove extends RolloutMove {
  readonly at: number;
}

export const MINUTE = 60_000;

export class RolloutFleet {
  now = Date.UTC(2026, 0, 1);
  readonly instances = new Map<string, Mutable<RolloutInstance>>();
  revisions: number[] = [1];
  control: Mutable<RolloutControl> & { rejected: RejectedRevision[] } = { paused: false, rejected: [] };
  readonly audit: AuditedMove[] = [];
  /** When each instance turns healthy at the revision it was last evaluated with. */
  private readonly healthyWhen = new Map<string, { revision: number; at: number }>();

  constructor(
    public policy: RolloutPolicy | undefined,
    public behaviour: Behaviour = () => MINUTE,
  ) {}

  /** An instance running `revision`, healthy there, as every instance is before a rollout. */
  add(
    name: string,
    options: { namespace?: string; labels?: Record<string, string>; revision?: number; clusters?: string[] } = {},
  ): void {
    const namespace = options.namespace ?? "default";
    const revision = options.revision ?? 1;
    this.instances.set(`${namespace}/${name}`, {
      key: `${namespace}/${name}`,
      namespace,
      name,
      labels: options.labels ?? {},
      createdAt: this.now - 1000 * (1000 - this.instances.size),
      assigned: revision,
      assignedAt: this.now - 3_600_000,
      evaluated: revision,
      healthyAt: this.now - 3_000_000,
      ...(options.clusters === undefined ? {} : { clusters: options.clusters }),
    });
  }

  /** A new instance, never reconciled. */
  create(name: string, namespace = "default"): void {
    this.instances.set(`${namespace}/${name}`, {
      key: `${namespace}/${name}`,
      namespace,
      name,
      labels: {},
      createdAt: this.now,
    });
  }

  get(key: string): Mutable<RolloutInstance> {
    const instance = this.instances.get(key);
    if (instance === undefined) throw new Error(`no instance ${key}`);
    return instance;
  }

  plan(): RolloutPlan | undefined {
    return planRollout({
      policy: this.policy,
      revisions: this.revisions,
      instances: [...this.instances.values()],
      control: this.control,
      now: this.now,
    });
  }

  /** One planning round as the controller will run it: verdicts first, then the moves. */
  round(): RolloutPlan {
    const plan = this.plan();
    if (plan === undefined) throw new Error("no policy: nothing to plan");
    if (plan.halt !== undefined) this.control.halted = plan.halt;
    if (plan.reject !== undefined) this.control.rejected = [...this.control.rejected, plan.reject];
    this.write(plan.moves);
    return plan;
  }

  write(moves: readonly RolloutMove[]): void {
    for (const move of moves) {
      const instance = this.get(move.key);
      instance.assigned = move.to;
      instance.assignedAt = this.now;
      this.audit.push({ ...move, at: this.now });
    }
  }

  /** Every instance whose assignment differs from what its status was computed with is reconciled. */
  reconcile(): void {
    for (const instance of this.instances.values()) {
      if (instance.assigned === undefined || instance.assigned === instance.evaluated) continue;
      instance.evaluated = instance.assigned;
      delete instance.healthyAt;
      const outcome = this.behaviour(instance, instance.assigned);
      if (typeof outcome === "number") {
        this.healthyWhen.set(instance.key, { revision: instance.assigned, at: this.now + outcome });
        instance.unhealthy = "Ready=False: ResourcesInProgress";
      } else {
        this.healthyWhen.delete(instance.key);
        instance.unhealthy = outcome.never;
      }
    }
    this.settle();
  }

  advance(ms: number): void {
    this.now += ms;
    this.settle();
  }

  /** The fleet's own count: instances whose last move has not yet been followed by health there. */
  updatingNow(): number {
    let count = 0;
    for (const instance of this.instances.values()) {
      if (instance.assigned === undefined) continue;
      if (instance.evaluated !== instance.assigned || instance.healthyAt === undefined) count++;
    }
    return count;
  }

  /** Rounds of plan → reconcile → advance until the plan is complete (or `limit` rounds). */
  runUntil(
    done: (plan: RolloutPlan) => boolean,
    step = MINUTE,
    limit = 500,
    eachRound?: (plan: RolloutPlan) => void,
  ): RolloutPlan {
    for (let i = 0; i < limit; i++) {
      const plan = this.round();
      eachRound?.(plan);
      if (done(plan)) return plan;
      this.reconcile();
      this.advance(step);
    }
    throw new Error(`not done after ${limit} rounds`);
  }

  halt(halt: RolloutHalt | undefined): void {
    if (halt === undefined) delete this.control.halted;
    else this.control.halted = halt;
  }

  private settle(): void {
    for (const [key, due] of this.healthyWhen) {
      const instance = this.get(key);
      if (instance.evaluated !== due.revision) {
        this.healthyWhen.delete(key);
        continue;
      }
      if (due.at <= this.now) {
        instance.healthyAt = due.at;
        delete instance.unhealthy;
        this.healthyWhen.delete(key);
      }
    }
  }
}
