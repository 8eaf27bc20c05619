/**
 * The instance side of the crash-loop guard (isolation/evaluation-guard.ts): the marks on the
 * instance (in flight, crashes counted), the decision before the first evaluation of a pass, and
 * the report of an instance whose evaluation killed the controller too often — Ready=False,
 * reason EvaluationCrashed, state ERROR — until its spec changes.
 */
import {
  ANNOTATIONS,
  INSTANCE_CONDITION_REASONS as REASONS,
  INSTANCE_CONDITIONS as TYPES,
  INSTANCE_STATES,
  KSTATUS_CONDITIONS,
} from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import { currentConditions, orderConditions, stamp, type KubeJson } from "../../runtime/index.js";
import type { CrashCount, EvaluationMarks, EvaluationRef, GuardDecision } from "../isolation/index.js";
import type { InstanceContext } from "./instance-context.js";
import type { ControllerContext } from "../context/index.js";
import type { ReconcileResult } from "../loop/index.js";
import { patchInstance, type InstanceWriter } from "./record.js";
import { writeStatus } from "./status-write.js";

const NO_GUARD: GuardDecision = { kind: "evaluate", done: () => undefined };

function refOf(key: string, instance: KubeObject): EvaluationRef | undefined {
  const uid = instance.metadata?.uid;
  const generation = instance.metadata?.generation;
  return uid === undefined || generation === undefined ? undefined : { key, uid, generation };
}

/** The marks as written: `<generation>/<process>` in flight, `<generation>:<count>[:<process>]` counted (older controllers wrote no process). */
export function marksOf(instance: KubeObject): EvaluationMarks {
  const annotations = instance.metadata?.annotations ?? {};
  const [evaluating, by] = (annotations[ANNOTATIONS.evaluating] ?? "").split("/");
  const generation = Number(evaluating);
  const [countedGeneration, count, last] = (annotations[ANNOTATIONS.evaluationCrashes] ?? "").split(":");
  const crashes = { generation: Number(countedGeneration), count: Number(count) };
  return {
    ...(Number.isSafeInteger(generation) && generation > 0
      ? { evaluating: { generation, ...(by === undefined || by === "" ? {} : { by }) } }
      : {}),
    ...(Number.isSafeInteger(crashes.generation) &&
    crashes.generation > 0 &&
    Number.isSafeInteger(crashes.count) &&
    crashes.count >= 0
      ? { crashes: { ...crashes, ...(last === undefined || last === "" ? {} : { last }) } }
      : {}),
  };
}

/** An earlier process finished an evaluation of this generation (and did not report a crash). */
function evaluatedBefore(instance: KubeObject): boolean {
  const status = instance.status as { observedGeneration?: unknown } | undefined;
  const generation = instance.metadata?.generation ?? 0;
  const ready = currentConditions(instance).get(TYPES.ready);
  return (
    typeof status?.observedGeneration === "number" &&
    status.observedGeneration >= generation &&
    ready?.reason !== REASONS.evaluationCrashed
  );
}

/**
 * The in-flight mark this instance needs before its evaluation, for ensureManaged to write with the
 * finalizer: the generation, or undefined when it is known good (or the guard is off).
 */
export function evaluationMark(ctx: Pick<ControllerContext, "evaluationGuard">, key: string) {
  return (current: KubeObject): string | undefined => {
    const ref = refOf(key, current);
    if (ctx.evaluationGuard === undefined || ref === undefined) return undefined;
    return ctx.evaluationGuard.needsMark(ref, marksOf(current), evaluatedBefore(current))
      ? `${ref.generation}/${ctx.evaluationGuard.processId}`
      : undefined;
  };
}

/** ensureManaged wrote the mark: this process is the one evaluating that generation. */
export function markedByUs(ctx: Pick<ControllerContext, "evaluationGuard">, key: string, instance: KubeObject): void {
  const ref = refOf(key, instance);
  if (ref !== undefined) ctx.evaluationGuard?.marked(ref);
}

export async function enterEvaluation(
  ctx: Pick<ControllerContext, "evaluationGuard" | "client">,
  key: string,
  instance: KubeObject,
): Promise<GuardDecision> {
  const ref = refOf(key, instance);
  if (ctx.evaluationGuard === undefined || ref === undefined) return NO_GUARD;
  const decision = await ctx.evaluationGuard.enter(ref, marksOf(instance), evaluatedBefore(instance));
  // The count is on the instance before its retry: a crash during the retry is counted on top.
  if (decision.record !== undefined) {
    try {
      await recordCrashes(ctx, instance, decision.record);
    } catch (error) {
      if (decision.kind === "evaluate") decision.done(false);
      throw error;
    }
  }
  return decision;
}

function recordCrashes(ctx: InstanceWriter, instance: KubeObject, record: CrashCount): Promise<KubeObject> {
  const value = `${record.generation}:${record.count}${record.last === undefined ? "" : `:${record.last}`}`;
  return patchInstance(ctx, instance, (current) =>
    current.metadata?.generation !== record.generation ||
    current.metadata.annotations?.[ANNOTATIONS.evaluationCrashes] === value
      ? undefined
      : { metadata: { annotations: { [ANNOTATIONS.evaluationCrashes]: value } } },
  );
}

/** A suspect waits for its retry; one that crashed too often says so on the instance. */
export async function reportGuarded(
  ctx: InstanceContext,
  key: string,
  instance: KubeObject,
  decision: Exclude<GuardDecision, { kind: "evaluate" }>,
): Promise<ReconcileResult> {
  const generation = instance.metadata?.generation ?? 0;
  if (decision.kind === "wait") {
    ctx.logger.warn(
      { instance: key, generation, crashes: decision.crashes, retryInMs: Math.round(decision.ms) },
      "a controller process died while evaluating this instance: evaluated again alone, after a backoff",
    );
    return { requeueAfterMs: decision.ms };
  }
  ctx.logger.error(
    { instance: key, generation, crashes: decision.crashes, cause: decision.cause },
    "the controller crashed every time it evaluated this instance: not evaluated again until its spec changes",
  );
  await writeStatus(
    ctx,
    instance,
    crashedStatus(instance, crashMessage(decision.crashes, generation, decision.cause), ctx.now()),
  );
  return {};
}

export function crashMessage(crashes: number, generation: number, cause?: string): string {
  return `the controller process died ${crashes} times while evaluating generation ${generation} of this instance${cause === undefined ? "" : ` (last: ${cause})`}; it is not evaluated again until its spec changes`;
}

function crashedStatus(instance: KubeObject, message: string, now: string): KubeJson {
  const previous = currentConditions(instance);
  const generation = instance.metadata?.generation;
  const at = (type: string, status: string, reason: string, message: string) =>
    stamp({ type, status, reason, message }, previous, generation, now);
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
 * Test-only (KRO_TEST_CRASH_ON / KRO_TEST_KILL_ON, read once by `kro controller` at start, never
 * from instance data). "crash": the evaluation of the named instance runs the main heap out of
 * memory for real — V8's fatal error, the report it leaves, the abort. "kill": it ends the process
 * with SIGKILL, as kill -9, a drain or the kernel's OOM killer would — no report, nothing to blame.
 */
export function crashForTest(how: "crash" | "kill"): never {
  if (how === "kill") process.kill(process.pid, "SIGKILL");
  const hold: number[][] = [];
  for (;;) hold.push(new Array<number>(100_000).fill(hold.length + 0.5));
}
