/**
 * The status of an instance the controller cannot even evaluate (a child kind it may not watch):
 * ResourcesReady and Ready False with the reason, state ERROR, every other status field kept.
 */
import { INSTANCE_CONDITIONS, INSTANCE_CONDITION_REASONS, INSTANCE_STATES } from "../api/index.js";
import type { KubeObject } from "../kube/index.js";
import type { KubeJson } from "../runtime/index.js";
import { stampConditions } from "./conditions.js";

export function failedStatus(instance: KubeObject, message: string, now: string): KubeJson {
  const status = (instance.status ?? {}) as KubeJson;
  const previous = Array.isArray(status.conditions) ? (status.conditions as unknown[]) : [];
  const failing = [INSTANCE_CONDITIONS.resourcesReady, INSTANCE_CONDITIONS.ready];
  const kept = previous.filter((c) => !failing.includes((c as { type?: string }).type as never));
  const updated = stampConditions(previous, failing.map((type) => ({ type, status: "False" as const, reason: INSTANCE_CONDITION_REASONS.notReady, message: `resource reconciliation failed: ${message}` })), now, instance.metadata?.generation);
  return { ...status, state: INSTANCE_STATES.error, conditions: [...kept, ...updated] };
}
