/**
 * Which wave each instance falls in: the first wave that takes it, in the policy's order, and an
 * implicit last wave for whatever no wave took. Percent waves take from kro's propagation order
 * (oldest first, key to break ties, rotated by the target revision so the first movers differ
 * between rollouts), instances already at the target first — so a restart, or an instance created
 * meanwhile, never reshuffles who has moved. Also what `kro diff` shows per instance.
 */
import type { RolloutPolicy, RolloutWave } from "../../graph/index.js";
import { matchesSelector } from "../../runtime/index.js";
import type { RolloutInstance } from "./rollout-state.js";

export interface WaveMembers {
  readonly index: number;
  readonly name: string;
  readonly members: readonly RolloutInstance[];
}

/** The wave every instance no wave took falls in: added unless the policy ends with one. */
export const IMPLICIT_WAVE = "(rest)";

/** kro's propagation order (the rate-limit proposal): creation time, then key, rotated by the target. */
export function propagationOrder(instances: readonly RolloutInstance[], target: number): RolloutInstance[] {
  const sorted = [...instances].sort((a, b) =>
    a.createdAt !== b.createdAt ? a.createdAt - b.createdAt : a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  );
  if (sorted.length === 0) return sorted;
  const shift = target % sorted.length;
  return [...sorted.slice(shift), ...sorted.slice(0, shift)];
}

export function wavesOf(policy: RolloutPolicy): readonly RolloutWave[] {
  const last = policy.waves.at(-1);
  return last?.selection.kind === "rest"
    ? policy.waves
    : [...policy.waves, { name: IMPLICIT_WAVE, selection: { kind: "rest" } }];
}

/**
 * The members of every wave, in order, over the instances the rollout moves (pinned ones are not
 * among them). `atTarget` puts instances that already run the target first in a percent wave.
 */
export function assignWaves(
  policy: RolloutPolicy,
  instances: readonly RolloutInstance[],
  target: number,
  atTarget: (instance: RolloutInstance) => boolean,
): WaveMembers[] {
  const order = propagationOrder(instances, target);
  const rank = new Map(order.map((instance, index) => [instance.key, index]));
  const left = new Set(order);
  const result: WaveMembers[] = [];
  let taken = 0;
  for (const [index, wave] of wavesOf(policy).entries()) {
    const selection = wave.selection;
    let members: RolloutInstance[];
    if (selection.kind === "selector")
      members = [...left].filter((i) =>
        matchesSelector(i.labels, { matchLabels: selection.matchLabels, matchExpressions: selection.matchExpressions }),
      );
    else if (selection.kind === "namespaces")
      members = [...left].filter((i) => i.namespace !== undefined && selection.namespaces.includes(i.namespace));
    else if (selection.kind === "clusters")
      members = [...left].filter((i) => (i.clusters ?? []).some((c) => selection.clusters.includes(c)));
    else if (selection.kind === "percent") {
      const quota = Math.max(0, Math.ceil((selection.percent * order.length) / 100) - taken);
      members = [...left]
        .sort((a, b) => Number(atTarget(b)) - Number(atTarget(a)) || (rank.get(a.key) ?? 0) - (rank.get(b.key) ?? 0))
        .slice(0, quota);
    } else members = [...left];
    members.sort((a, b) => (rank.get(a.key) ?? 0) - (rank.get(b.key) ?? 0));
    for (const member of members) left.delete(member);
    taken += members.length;
    result.push({ index, name: wave.name, members });
  }
  return result;
}
