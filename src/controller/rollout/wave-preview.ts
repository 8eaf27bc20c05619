/**
 * Which wave each instance would fall in if the RGD changed now (`kro diff`): the planner's own
 * membership over the instances as they are, for the next revision the RGD would issue. Pinned
 * instances are not moved by waves; they are said to stay.
 */
import type { RolloutPolicy } from "../../graph/index.js";
import { instanceKeyOf } from "../context/index.js";
import { rolloutInstanceOf, type ObjectView } from "./rollout-records.js";
import { assignWaves } from "./wave-membership.js";

export type WavePreview =
  | { readonly kind: "wave"; readonly index: number; readonly name: string; readonly of: number }
  | { readonly kind: "pinned"; readonly pin: string };

/** `namespace/name` (`/name` when cluster-scoped) → its wave, or its pin. */
export function previewWaves(
  policy: RolloutPolicy,
  rgdName: string,
  objects: readonly ObjectView[],
  nextRevision: number,
): Map<string, WavePreview> {
  const result = new Map<string, WavePreview>();
  // The planner's own keys, so ties in a percent wave break as they will in the controller.
  const byKey = new Map<string, string>();
  const placement = policy.waves.some((w) => w.selection.kind === "clusters");
  const instances = objects.map((o) => {
    const key = instanceKeyOf(rgdName, o);
    byKey.set(key, previewKey(o));
    return rolloutInstanceOf(o, key, placement);
  });
  const moving = instances.filter((i) => {
    if (i.pin === undefined) return true;
    result.set(byKey.get(i.key) ?? i.key, { kind: "pinned", pin: i.pin });
    return false;
  });
  const waves = assignWaves(policy, moving, nextRevision, () => false);
  for (const wave of waves)
    for (const member of wave.members)
      result.set(byKey.get(member.key) ?? member.key, {
        kind: "wave",
        index: wave.index,
        name: wave.name,
        of: waves.length,
      });
  return result;
}

export const previewKey = (o: ObjectView): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
