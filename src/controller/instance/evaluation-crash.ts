/**
 * The instance side of the crash-loop guard (isolation/evaluation-guard.ts): ask before the
 * first evaluation of a pass, and report an instance whose evaluation killed the controller
 * too often — Ready=False, reason EvaluationCrashed, state ERROR — until its spec changes.
 */
import { INSTANCE_CONDITION_REASONS as REASONS, INSTANCE_CONDITIONS as TYPES, INSTANCE_STATES, KSTATUS_CONDITIONS } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { currentConditions, orderConditions, stamp, type KubeJson } from "../../runtime/index.js";
import type { GuardDecision, Suspect } from "../isolation/index.js";
import type { ControllerContext } from "../context/index.js";
import type { ReconcileResult } from "../loop/index.js";
import { writeStatus } from "./status-write.js";

const NO_GUARD: GuardDecision = { kind: "evaluate", done: () => undefined };

export async function enterEvaluation(ctx: Pick<ControllerContext, "evaluationGuard">, key: string, instance: KubeObject): Promise<GuardDecision> {
  const uid = instance.metadata?.uid;
  const generation = instance.metadata?.generation;
  if (ctx.evaluationGuard === undefined || uid === undefined || generation === undefined) return NO_GUARD;
  return ctx.evaluationGuard.enter({ key, uid, generation }, evaluatedBefore(instance));
}

/** An earlier process finished an evaluation of this generation (and did not report a crash). */
function evaluatedBefore(instance: KubeObject): boolean {
  const status = instance.status as { observedGeneration?: unknown } | undefined;
  const generation = instance.metadata?.generation ?? 0;
  const ready = currentConditions(instance).get(TYPES.ready);
  return typeof status?.observedGeneration === "number" && status.observedGeneration >= generation && ready?.reason !== REASONS.evaluationCrashed;
}

/** A suspect waits for its retry; one that crashed too often says so on the instance. */
export async function reportGuarded(ctx: ControllerContext, instance: KubeObject, decision: Exclude<GuardDecision, { kind: "evaluate" }>): Promise<ReconcileResult> {
  if (decision.kind === "wait") {
    ctx.logger.warn({ instance: decision.suspect.key, crashes: decision.suspect.crashes, retryInMs: Math.round(decision.ms) }, "evaluation of this instance was in flight when the controller died: retried alone after a backoff");
    return { requeueAfterMs: decision.ms };
  }
  await writeStatus(ctx, instance, crashedStatus(instance, decision.suspect, ctx.now()));
  return {};
}

export function crashMessage(suspect: Suspect): string {
  return `the controller process died ${suspect.crashes} times while evaluating generation ${suspect.generation} of this instance (last at ${suspect.lastCrash}); `
    + "it is not evaluated again until its spec changes";
}

function crashedStatus(instance: KubeObject, suspect: Suspect, now: string): KubeJson {
  const previous = currentConditions(instance);
  const generation = instance.metadata?.generation;
  const at = (type: string, status: string, reason: string, message: string) => stamp({ type, status, reason, message }, previous, generation, now);
  const message = crashMessage(suspect);
  const { state: _state, conditions: _conditions, ...fields } = (instance.status ?? {}) as KubeJson;
  return {
    ...fields,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
    state: INSTANCE_STATES.error,
    conditions: orderConditions([
      at(TYPES.instanceManaged, "True", REASONS.managed, "instance is properly managed with finalizers and labels"),
      at(TYPES.graphResolved, "False", REASONS.evaluationCrashed, message),
      at(KSTATUS_CONDITIONS.stalled, "True", REASONS.evaluationCrashed, message),
      at(TYPES.ready, "False", REASONS.evaluationCrashed, message),
    ]),
  };
}

/**
 * Test-only (KRO_TEST_CRASH_ON, read once by `kro controller` at start, never from instance
 * data): the evaluation of the named instance kills the process as an out-of-memory or the
 * kernel's OOM killer would — no cleanup, no last write.
 */
export function crashForTest(): never {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable: SIGKILL did not end the process");
}
