/**
 * kstatus conventions on an instance's status (sigs.k8s.io/cli-utils/pkg/kstatus, which Flux
 * health checks and `kubectl wait`-style tools use): `status.observedGeneration` says which
 * generation the status describes, so a status written for an older spec never reads as current;
 * `Reconciling=True` while the instance is working towards Ready, `Stalled=True` when it cannot get
 * there without a change (an error, or reconciliation suspended). Both are "abnormal-true"
 * conditions: present only while True, as the convention allows, so a healthy instance keeps
 * exactly kro's four conditions.
 */
import { INSTANCE_CONDITION_REASONS as REASONS, INSTANCE_STATES, KSTATUS_CONDITIONS } from "../api/index.js";
import type { Condition, ConditionInput } from "./conditions.js";
import type { StatusContext } from "./types.js";

/** The kstatus condition (at most one) for an instance in `state` whose root Ready is `ready`. */
export function kstatusCondition(state: string, ready: Condition, context: StatusContext): ConditionInput | undefined {
  if (context.suspended === true) {
    return {
      type: KSTATUS_CONDITIONS.stalled,
      status: "True",
      reason: REASONS.reconciliationSuspended,
      message: "reconciliation is suspended by the kro.run/reconcile annotation",
    };
  }
  if (state === INSTANCE_STATES.error) {
    return {
      type: KSTATUS_CONDITIONS.stalled,
      status: "True",
      reason: ready.reason === "" ? REASONS.resourcesNotReady : ready.reason,
      message: ready.message,
    };
  }
  if (
    state === INSTANCE_STATES.inProgress ||
    state === INSTANCE_STATES.deleting ||
    (state === INSTANCE_STATES.active && ready.status !== "True")
  ) {
    return {
      type: KSTATUS_CONDITIONS.reconciling,
      status: "True",
      reason: ready.reason === "" ? REASONS.progressing : ready.reason,
      message: ready.message,
    };
  }
  return undefined;
}
