/**
 * Helm runs the hooks of one event one after another (pkg/action/hooks.go): sorted by
 * `helm.sh/hook-weight` (an integer, anything else counts as 0), then by kind in install order
 * (unknown kinds last, by kind name), then by object name, each waited for before the next. A
 * declared graph gets the same sequence as a chain of dependsOn edges between the hook children
 * of one phase, each keyed by its first object in that order as the chart's values render it.
 */
import { installRank } from "./install-order.js";

export interface HookKey {
  readonly id: string;
  readonly weight: number;
  readonly kind: string;
  readonly name: string;
  /** The child's enabling condition: a chain never runs through a child that may be excluded. */
  readonly condition: string | undefined;
}

/** Go's strconv.Atoi as Helm uses it for hook weights: an optional sign and decimal digits, else 0. */
export function hookWeight(value: unknown): number {
  if (typeof value !== "string" || !/^[+-]?\d+$/.test(value)) return 0;
  const n = Number.parseInt(value, 10);
  return Number.isSafeInteger(n) ? n : 0;
}

/** Helm's hookByWeight.Less. */
export function compareHooks(a: HookKey, b: HookKey): number {
  if (a.weight !== b.weight) return a.weight - b.weight;
  // Known kinds have distinct ranks; unknown ones share the last rank and sort by kind name.
  const rank = installRank(a.kind) - installRank(b.kind);
  if (rank !== 0) return rank;
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * dependsOn per hook child of one phase: the previous child in Helm's order whose condition is
 * the same or none (a dependency that is excluded would exclude its dependents in kro, so a
 * child of a subchart that may be disabled is never put on the chain of the others).
 */
export function hookChain(keys: readonly HookKey[]): Map<string, string[]> {
  const sorted = [...keys].sort(compareHooks);
  const out = new Map<string, string[]>();
  sorted.forEach((key, i) => {
    const previous = sorted
      .slice(0, i)
      .reverse()
      .find((p) => p.condition === undefined || p.condition === key.condition);
    out.set(key.id, previous === undefined ? [] : [previous.id]);
  });
  return out;
}
