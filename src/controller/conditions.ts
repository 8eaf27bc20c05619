/**
 * Kubernetes condition bookkeeping shared by the RGD status and the controller's own writes:
 * a condition's lastTransitionTime changes only when its status changes, and every condition set
 * in a pass carries the generation it was computed for.
 */
export interface Condition {
  readonly type: string;
  readonly status: "True" | "False" | "Unknown";
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime?: string;
  readonly observedGeneration?: number;
}

export type ConditionInput = Omit<Condition, "lastTransitionTime" | "observedGeneration">;

/** Stamps times and generation onto `next`, keeping each previous transition time whose status is unchanged. */
export function stampConditions(previous: readonly unknown[] | undefined, next: readonly ConditionInput[], now: string, generation: number | undefined): Condition[] {
  const before = new Map<string, Condition>();
  for (const item of previous ?? []) {
    const condition = item as Partial<Condition>;
    if (typeof condition.type === "string") before.set(condition.type, condition as Condition);
  }
  return next.map((condition) => {
    const old = before.get(condition.type);
    const lastTransitionTime = old?.status === condition.status && typeof old.lastTransitionTime === "string" ? old.lastTransitionTime : now;
    return { ...condition, lastTransitionTime, ...(generation === undefined ? {} : { observedGeneration: generation }) };
  });
}

/** The root Ready condition from its dependents: True only when all are True, else the worst one. */
export function rootReady(dependents: readonly ConditionInput[]): ConditionInput {
  const worst = dependents.find((c) => c.status === "False") ?? dependents.find((c) => c.status === "Unknown");
  return worst === undefined
    ? { type: "Ready", status: "True", reason: "Ready", message: "" }
    : { type: "Ready", status: worst.status, reason: worst.reason, message: worst.message };
}
