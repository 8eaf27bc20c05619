/**
 * buildInstanceStatus: the whole `.status` the controller writes after a pass
 * (docs/reference/kro-reference.md §6.10, §6.11) — user fields, `state`, and the conditions
 * (built-ins or the author's), with lastTransitionTime kept from the current status when a
 * condition's status did not change.
 */
import { INSTANCE_CONDITION_REASONS as REASONS, INSTANCE_CONDITIONS as TYPES, INSTANCE_STATES } from "../api/index.js";
import type { CompiledGraph } from "../graph/index.js";
import {
  currentConditions,
  generationOf,
  orderConditions,
  rootReady,
  stamp,
  type Condition,
  type ConditionInput,
} from "./conditions.js";
import type { EvaluationScope } from "./dialect.js";
import { evaluatorFor } from "./evaluator-for.js";
import { isRecord } from "./identity.js";
import { kstatusCondition } from "./kstatus.js";
import {
  NODE_STATES,
  type InstanceEvaluation,
  type KubeJson,
  type NodeEvaluation,
  type StatusContext,
} from "./types.js";

const DONE_STATES: ReadonlySet<string> = new Set([NODE_STATES.synced, NODE_STATES.skipped, NODE_STATES.deleted]);

function describe(nodes: readonly NodeEvaluation[]): string {
  return nodes.map((n) => n.pending?.message ?? `resource "${n.id}" is ${n.state}`).join("; ");
}

/**
 * ResourcesReady in kro v0.9's words (pkg/controller/instance/controller_reconcile.go
 * reconcileInstance and handleInstanceDeletion, markers in controller_status.go): Unknown
 * ResourcesInProgress while waiting or deleting, False ResourcesNotReady with "at least one
 * resource reports an error: …" for failures, True AllResourcesReady. A resource that is only
 * not ready yet (a StatefulSet waiting for its volumes) is False ResourcesNotReady too, but says
 * it is waiting: kro records it as an error of the pass, which sent people looking for an error
 * that was not there (docs/design/compatibility.md).
 */
function resourcesReady(evaluation: InstanceEvaluation, context: StatusContext): ConditionInput {
  const condition = (status: string, reason: string, message: string): ConditionInput => ({
    type: TYPES.resourcesReady,
    status,
    reason,
    message,
  });
  const failed = (message: string): ConditionInput =>
    condition("False", REASONS.resourcesNotReady, `at least one resource reports an error: ${message}`);
  if (context.deleting === true)
    return condition("Unknown", REASONS.resourcesInProgress, "deleting resources in reverse topological order");
  if (context.suspended === true)
    return condition(
      "False",
      REASONS.reconciliationSuspended,
      "reconciliation is suspended by the kro.run/reconcile annotation",
    );
  if (evaluation.error !== undefined) return failed(evaluation.error);
  const applyErrors = Object.entries(context.applyErrors ?? {});
  if (applyErrors.length > 0) return failed(applyErrors.map(([id, e]) => `${id}: ${e}`).join("; "));
  const terminating = evaluation.nodes.filter((n) => n.state === NODE_STATES.deleting);
  if (terminating.length > 0) return condition("False", REASONS.resourceDeleting, describe(terminating));
  const notReady = evaluation.nodes.filter((n) => !n.ready);
  if (notReady.length === 0) return condition("True", REASONS.allResourcesReady, "all resources are created and ready");
  if (evaluation.pending)
    return condition("Unknown", REASONS.resourcesInProgress, `waiting for resource resolution: ${describe(notReady)}`);
  const failing = notReady.filter((n) => n.state === NODE_STATES.error);
  if (failing.length > 0) return failed(failing.map((n) => `resource "${n.id}": ${n.error ?? "error"}`).join("; "));
  return condition(
    "False",
    REASONS.resourcesNotReady,
    `waiting for at least one resource to become ready: ${describe(notReady)}`,
  );
}

/** What status expressions see: every observed object, readiness not required (§6.10). */
function statusObserved(graph: CompiledGraph, evaluation: InstanceEvaluation): Map<string, readonly KubeJson[]> {
  const types = new Map(graph.nodes.map((n) => [n.id, n.type]));
  const observed = new Map<string, readonly KubeJson[]>();
  for (const node of evaluation.nodes) {
    if (node.excluded || node.error !== undefined) continue;
    const type = types.get(node.id);
    const list = type === "collection" || type === "externalCollection";
    // A collection is known (possibly empty) once it rendered; a scalar once its object exists.
    const rendered = node.pending === undefined || node.pending.kind === "readiness";
    if (list ? rendered : node.observed.length > 0) observed.set(node.id, node.observed);
  }
  return observed;
}

function state(evaluation: InstanceEvaluation, context: StatusContext, ready: Condition, authorErrors: number): string {
  if (context.deleting === true) return INSTANCE_STATES.deleting;
  if (authorErrors > 0) return INSTANCE_STATES.error;
  if (ready.status === "True") return INSTANCE_STATES.active;
  if (
    evaluation.error !== undefined ||
    Object.keys(context.applyErrors ?? {}).length > 0 ||
    evaluation.nodes.some((n) => n.state === NODE_STATES.error)
  )
    return INSTANCE_STATES.error;
  if (context.suspended !== true && evaluation.nodes.every((n) => DONE_STATES.has(n.state)))
    return INSTANCE_STATES.active;
  return INSTANCE_STATES.inProgress;
}

/** The scope status expressions see; `builtins` are kro's own conditions, read by runtime.condition(schema, …). */
export function statusScope(
  graph: CompiledGraph,
  instance: KubeJson,
  evaluation: InstanceEvaluation,
  builtins: readonly KubeJson[] = [],
): EvaluationScope {
  const currentStatus = isRecord(instance.status) ? instance.status : {};
  return {
    instance: { ...instance, status: { ...currentStatus, conditions: builtins } },
    observed: statusObserved(graph, evaluation),
    excluded: new Set(evaluation.nodes.filter((n) => n.excluded).map((n) => n.id)),
  };
}

export function buildInstanceStatus(
  graph: CompiledGraph,
  instance: KubeJson,
  evaluation: InstanceEvaluation,
  context: StatusContext,
): KubeJson {
  const previous = currentConditions(instance);
  const generation = generationOf(instance);
  const at = (input: ConditionInput): Condition => stamp(input, previous, generation, context.now);
  const builtinsWith = (statusErrors: readonly string[]): { ready: Condition; builtins: readonly Condition[] } => {
    const dependents = [
      at({
        type: TYPES.instanceManaged,
        status: "True",
        reason: REASONS.managed,
        message: "instance is properly managed with finalizers and labels",
      }), // kro pkg/controller/instance/status.go InstanceManaged
      at(
        statusErrors.length === 0
          ? {
              type: TYPES.graphResolved,
              status: "True",
              reason: REASONS.resolved,
              message: "runtime graph created and all resources resolved",
            }
          : {
              type: TYPES.graphResolved,
              status: "False",
              reason: REASONS.resolutionFailed,
              message: `status could not be resolved: ${statusErrors.join("; ")}`,
            },
      ),
      at(resourcesReady(evaluation, context)),
    ];
    const ready = at(rootReady(dependents));
    return { ready, builtins: orderConditions([...dependents, ready]) };
  };
  let { ready, builtins } = builtinsWith([]);

  // Author conditions read kro's own conditions through runtime.condition(schema, "Ready").
  const projected = evaluatorFor(graph).projectStatus(graph, statusScope(graph, instance, evaluation, builtins));
  // A status that failed to resolve makes the state ERROR: the conditions say so, and why.
  if (projected.errors.length > 0) ({ ready, builtins } = builtinsWith(projected.errors));
  const authored = projected.conditions.map(at);
  let conditions: readonly KubeJson[];
  if (projected.replacesBuiltins) {
    // A pending author condition keeps what was written before (§6.11).
    const kept = (projected.pendingConditionTypes ?? []).flatMap((type) => {
      const before = previous.get(type);
      return before === undefined || authored.some((c) => c.type === type) ? [] : [before];
    });
    conditions = [...orderConditions(authored), ...kept];
    // Author conditions cannot say Ready while the state is ERROR for a status that did not resolve.
    if (projected.errors.length > 0) conditions = [...conditions.filter((c) => c.type !== TYPES.ready), ready];
  } else if (projected.errors.length > 0) {
    conditions = orderConditions([
      ...builtins.filter(
        (c) => !authored.some((a) => a.type === c.type) || c.type === TYPES.ready || c.type === TYPES.graphResolved,
      ),
      ...authored.filter((a) => a.type !== TYPES.ready && a.type !== TYPES.graphResolved),
    ]);
  } else {
    const overridden = new Set(authored.map((c) => c.type));
    conditions = orderConditions([...builtins.filter((c) => !overridden.has(c.type)), ...authored]);
  }
  const { state: _state, conditions: _conditions, ...fields } = projected.fields;
  const instanceState = state(evaluation, context, ready, projected.errors.length);
  // kstatus: Reconciling/Stalled just before the root Ready (unless the author writes that type),
  // and the generation this status is for (unless the author declared a field of that name).
  const kstatus = kstatusCondition(instanceState, ready, context);
  if (kstatus !== undefined && !conditions.some((c) => c.type === kstatus.type)) {
    const readyAt = conditions.findIndex((c) => c.type === TYPES.ready);
    const at_ = readyAt < 0 ? conditions.length : readyAt;
    conditions = [...conditions.slice(0, at_), at(kstatus), ...conditions.slice(at_)];
  }
  const observed =
    generation === undefined || Object.hasOwn(fields, "observedGeneration") ? {} : { observedGeneration: generation };
  return { ...fields, ...observed, state: instanceState, conditions };
}
