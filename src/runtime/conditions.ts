/**
 * Condition bookkeeping shared by built-in and author conditions (docs/reference/kro-reference.md
 * §2.4, §6.10): observedGeneration stamped, lastTransitionTime kept while the status does not
 * change, the list ordered by transition time with the root `Ready` last.
 */
import { INSTANCE_CONDITION_REASONS, INSTANCE_CONDITIONS } from "../api/index.js";
import { isRecord, metadataOf } from "./identity.js";
import type { KubeJson } from "./types.js";

export interface ConditionInput {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

// A type alias (not an interface) so a Condition is also a KubeJson record.
export type Condition = {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
};

/** The conditions the instance carries now, by type. */
export function currentConditions(instance: KubeJson): Map<string, KubeJson> {
  const status = isRecord(instance.status) ? instance.status : {};
  const list = Array.isArray(status.conditions) ? status.conditions : [];
  return new Map(
    list
      .filter(isRecord)
      .filter((c) => typeof c.type === "string")
      .map((c) => [c.type as string, c]),
  );
}

export function generationOf(instance: KubeJson): number | undefined {
  const generation = metadataOf(instance).generation;
  return typeof generation === "number" ? generation : undefined;
}

export function stamp(
  input: ConditionInput,
  previous: ReadonlyMap<string, KubeJson>,
  generation: number | undefined,
  now: string,
): Condition {
  const before = previous.get(input.type);
  const unchanged =
    before !== undefined && before.status === input.status && typeof before.lastTransitionTime === "string";
  return {
    type: input.type,
    status: input.status,
    reason: input.reason ?? "",
    message: input.message ?? "",
    lastTransitionTime: unchanged ? (before.lastTransitionTime as string) : now,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  };
}

/** Stable sort by lastTransitionTime (RFC 3339 sorts as text), root `Ready` last. */
export function orderConditions(conditions: readonly Condition[]): Condition[] {
  const rank = (c: Condition): number => (c.type === INSTANCE_CONDITIONS.ready ? 1 : 0);
  return [...conditions].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (a.lastTransitionTime < b.lastTransitionTime ? -1 : a.lastTransitionTime > b.lastTransitionTime ? 1 : 0),
  );
}

/** Root Ready: True when every dependent is; otherwise a copy of the most unhealthy one (False beats Unknown, newest first). */
export function rootReady(dependents: readonly Condition[]): ConditionInput {
  const unhealthy = dependents.filter((c) => c.status !== "True");
  if (unhealthy.length === 0)
    return { type: INSTANCE_CONDITIONS.ready, status: "True", reason: INSTANCE_CONDITION_REASONS.ready, message: "" };
  const [worst] = [...unhealthy].sort(
    (a, b) =>
      (a.status === "False" ? 0 : 1) - (b.status === "False" ? 0 : 1) ||
      (b.lastTransitionTime < a.lastTransitionTime ? -1 : b.lastTransitionTime > a.lastTransitionTime ? 1 : 0),
  );
  return {
    type: INSTANCE_CONDITIONS.ready,
    status: worst?.status ?? "Unknown",
    reason: worst?.reason ?? "",
    message: worst?.message ?? "",
  };
}
