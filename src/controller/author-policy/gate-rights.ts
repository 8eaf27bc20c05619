/**
 * The author checks as the write gate asks them (instance/write-gate.ts): per node, the rights the
 * instance's recorded requester must hold on the concrete child. Only the checks of the RGD's own
 * nodes: a nested instance's children are judged by its own pass, for the same requester (the
 * gate copies the outer record onto it), while the outer check covers where the nested instance lands.
 */
import type { GateRight } from "../context/index.js";
import { ADOPTION_CONDITIONS, type AuthorCheck } from "./author-checks.js";

export function gateRightsOf(checks: readonly AuthorCheck[]): Map<string, GateRight[]> {
  const rights = new Map<string, GateRight[]>();
  for (const check of checks) {
    const adoption =
      check.when === undefined
        ? undefined
        : check.when === ADOPTION_CONDITIONS.delete
          ? ("delete" as const)
          : check.when === ADOPTION_CONDITIONS.any
            ? ("any" as const)
            : undefined;
    // A condition the gate cannot read (none at the top level today) is asked always: stricter.
    const right: GateRight = {
      group: check.group,
      resource: check.resource,
      verb: check.verb,
      clusterScoped: check.clusterScoped,
      adoption,
    };
    for (const nodeId of check.nodeIds) {
      if (nodeId.includes("/")) continue;
      rights.set(nodeId, [...(rights.get(nodeId) ?? []), right]);
    }
  }
  return rights;
}
