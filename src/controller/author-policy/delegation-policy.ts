/**
 * Keeps the static kro-delegation policy (delegation-policy-objects.ts) on the cluster and in
 * the policy state like the per-RGD ones: watched by policy-guard.ts, restored within seconds,
 * and — unlike them — never deleted (it is cluster-wide; other controllers may rely on it). When
 * it was missing or different at the controller's start, every delegation written before it was
 * applied counts as written without it (a breach window from revision 0).
 */
import { isJsonSubset } from "../context/index.js";
import type { ControllerContext } from "../context/index.js";
import { applyExactly } from "./author-policy.js";
import {
  DELEGATION_POLICY_ID,
  DELEGATION_POLICY_KEY,
  delegationPolicyObjects,
  delegationRulesOf,
} from "./delegation-policy-objects.js";

type Ctx = Pick<ControllerContext, "client" | "authorPolicies" | "options" | "logger" | "mayWriteCluster">;

/**
 * The policy objects as the cluster holds them, when each holds the rules that judge delegations
 * (the load probe aside: a policy from before it judged delegations all the same); undefined otherwise.
 */
async function intact(
  ctx: Ctx,
  objects: readonly Record<string, unknown>[],
): Promise<Record<string, unknown>[] | undefined> {
  const stored: Record<string, unknown>[] = [];
  const rules = delegationRulesOf(objects);
  for (const [i, object] of objects.entries()) {
    try {
      const live = await ctx.client.get({
        apiVersion: String(object.apiVersion),
        kind: String(object.kind),
        name: (object.metadata as { name: string }).name,
      });
      const liveSpec = (live as { spec?: unknown }).spec;
      // As wanted, or as an earlier version without the probe wrote it (arrays compare whole).
      if (!isJsonSubset(object.spec, liveSpec) && !isJsonSubset(rules[i]?.spec, liveSpec)) return undefined;
      stored.push(live);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }
  return stored;
}

/**
 * Applies the policy (nothing with the author check off controller-wide); false when it could not
 * be. A replica that may not write cluster-wide objects now (sharding: not the RGD leader) only
 * reads: the policy is in force when the cluster holds it as wanted, and the leader restores it.
 */
export async function ensureDelegationPolicy(ctx: Ctx): Promise<boolean> {
  if (ctx.options.authorCheck === "Disabled") return true;
  const objects = delegationPolicyObjects();
  const first = !ctx.authorPolicies.guarded(DELEGATION_POLICY_KEY);
  if (!ctx.mayWriteCluster()) return observeOnly(ctx, objects, first);
  try {
    if (first && (await intact(ctx, objects)) === undefined) {
      ctx.authorPolicies.breach(
        DELEGATION_POLICY_KEY,
        "the kro-delegation admission policy was not in the cluster as wanted when the controller started",
        "0",
      );
    }
    ctx.authorPolicies.expect(DELEGATION_POLICY_KEY, DELEGATION_POLICY_ID, objects);
    const stored: Record<string, unknown>[] = [];
    for (const object of objects) stored.push(await applyExactly(ctx.client, object));
    ctx.authorPolicies.applied(DELEGATION_POLICY_KEY, stored);
    return true;
  } catch (error) {
    const message = `cannot install the kro-delegation admission policy: ${error instanceof Error ? error.message : String(error)}`;
    if (first) ctx.authorPolicies.expect(DELEGATION_POLICY_KEY, DELEGATION_POLICY_ID, objects);
    ctx.authorPolicies.installFailed(DELEGATION_POLICY_KEY, message);
    ctx.logger.warn({ err: message }, "delegations are not applied until the kro-delegation policy is installed");
    return false;
  }
}

async function observeOnly(ctx: Ctx, objects: readonly Record<string, unknown>[], first: boolean): Promise<boolean> {
  try {
    const stored = await intact(ctx, objects);
    if (first) ctx.authorPolicies.expect(DELEGATION_POLICY_KEY, DELEGATION_POLICY_ID, objects);
    if (stored === undefined) {
      ctx.authorPolicies.breach(
        DELEGATION_POLICY_KEY,
        "the kro-delegation admission policy is not in the cluster as wanted (the RGD leader restores it)",
        first ? "0" : undefined,
      );
      return false;
    }
    if (first) ctx.authorPolicies.applied(DELEGATION_POLICY_KEY, stored);
    return true;
  } catch (error) {
    if (first) ctx.authorPolicies.expect(DELEGATION_POLICY_KEY, DELEGATION_POLICY_ID, objects);
    ctx.authorPolicies.installFailed(
      DELEGATION_POLICY_KEY,
      `cannot read the kro-delegation admission policy: ${error instanceof Error ? error.message : String(error)}`,
    );
    return false;
  }
}
