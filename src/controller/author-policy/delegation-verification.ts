/**
 * A delegation holds only if the RGD's recorded author holds the delegated rights, so
 * that no one delegates more than they hold. Per RGD that delegates: the recorded author
 * (kro.run/delegated-by, -groups) was admitted under the static kro-delegation policy — judged by
 * revision once the policy watch has caught up, like instance writes — and a SubjectAccessReview
 * for that user and those groups allows every delegated right (delegated-rights.ts). Whatever fails
 * is not applied: the policy the controller installs for the RGD's instances checks those children
 * as if the RGD delegated nothing, and the RGD's DelegationVerified condition names the user, the
 * child, the verb and the missing permission. Reviews are cached for the re-verification period.
 */
import { ANNOTATIONS } from "../../api/index.js";
import {
  containmentPolicyOf,
  delegates,
  delegationAuthorOf,
  type CompiledGraph,
  type ContainmentPolicy,
} from "../../graph/index.js";
import type { KubeObject } from "../../kube/index.js";
import type { ConditionInput } from "../../runtime/index.js";
import { delegationFingerprint, type ControllerContext, type ObservedWrite } from "../context/index.js";
import { delegatedNodes, delegatedRights, rightText, type DelegatedRight } from "./delegated-rights.js";
import { ensureDelegationPolicy } from "./delegation-policy.js";
import { resolveKinds } from "./author-policy.js";
import { DELEGATION_POLICY_KEY, DELEGATION_POLICY_NAME } from "./delegation-policy-objects.js";
import { lookupAuthorNodes } from "./lookup-author-checks.js";
import { delegationPolicyUnproven } from "./policy-load-proof.js";

export const DELEGATION_CONDITION = "DelegationVerified";
/** What a delegation consists of: a change to any of these is a new delegation, judged afresh. */
export const DELEGATION_KEYS = [
  ANNOTATIONS.authorCheckExempt,
  ANNOTATIONS.authorCheck,
  ANNOTATIONS.delegatedBy,
  ANNOTATIONS.delegatedGroups,
] as const;

export interface DelegationOutcome {
  /** What the RGD's instances are checked by: the declared waivers that hold. */
  readonly policy: ContainmentPolicy;
  /** Present only for an RGD that delegates. */
  readonly condition: ConditionInput | undefined;
}

/** The key under which an RGD's delegation writes wait to be judged (context/author-policy-state.ts). */
export const delegationWriteKey = (rgdName: string) => `${DELEGATION_POLICY_KEY}/${rgdName}`;

/** Whether the write that set this delegation can be trusted to have passed kro-delegation; a reason when not. */
async function judgeWrite(ctx: ControllerContext, rgd: KubeObject): Promise<string | undefined> {
  const rgdName = rgd.metadata?.name ?? "";
  const fingerprint = delegationFingerprint(rgd, DELEGATION_KEYS);
  const key = delegationWriteKey(rgdName);
  const known = ctx.delegations.verdict(rgdName, fingerprint);
  const ticket = ctx.authorPolicies.seenTicket(key);
  if (known !== undefined && ticket === undefined) return known.unverified;
  await ctx.policySync.caughtUp(ticket ?? ctx.policySync.ticket());
  const standing = ctx.authorPolicies.standing(DELEGATION_POLICY_KEY);
  if (!standing.inForce) return `the ${DELEGATION_POLICY_NAME} admission policy is not in force (${standing.reason})`;
  const unproven = delegationPolicyUnproven(ctx);
  if (unproven !== undefined) return unproven;
  // The writes seen, and the RGD as read now (its version is at least that of the write that set it).
  const writes: ObservedWrite[] = [
    ...ctx.authorPolicies.takeSeen(key),
    { resourceVersion: rgd.metadata?.resourceVersion, observedAt: ctx.authorPolicies.now() },
  ];
  const suspect = writes.some((w) => ctx.authorPolicies.suspect(DELEGATION_POLICY_KEY, w));
  const unverified =
    known?.unverified ??
    (suspect
      ? `the delegation was written while the ${DELEGATION_POLICY_NAME} admission policy was not in force, so its recorded author may be forged; write it again (any change to ${ANNOTATIONS.delegatedBy}, the exemption or the spec) to have it recorded and verified`
      : undefined);
  ctx.delegations.judged(rgdName, { fingerprint, unverified });
  return unverified;
}

async function allowed(
  ctx: ControllerContext,
  user: string,
  groups: readonly string[],
  right: DelegatedRight,
): Promise<boolean | string> {
  const resourceAttributes = {
    group: right.group,
    resource: right.resource,
    verb: right.verb,
    ...(right.namespace === undefined ? {} : { namespace: right.namespace }),
    ...(right.name === undefined ? {} : { name: right.name }),
  };
  const key = JSON.stringify([user, groups, resourceAttributes]);
  const cached = ctx.delegations.review(key);
  if (cached !== undefined) return cached;
  try {
    const review = await ctx.client.review({
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: { user, groups: [...groups], resourceAttributes },
    });
    const answer = (review as { status?: { allowed?: unknown } }).status?.allowed === true;
    ctx.delegations.reviewed(key, answer);
    return answer;
  } catch (error) {
    return `cannot ask (SubjectAccessReview): ${error instanceof Error ? error.message : String(error)}`;
  }
}

export async function verifyDelegation(
  ctx: ControllerContext,
  rgd: KubeObject,
  graph: CompiledGraph,
): Promise<DelegationOutcome> {
  const rgdName = rgd.metadata?.name ?? "";
  const declared = containmentPolicyOf(rgd);
  if (ctx.options.authorCheck === "Disabled" || !delegates(declared)) {
    ctx.delegations.forget(rgdName);
    return { policy: declared, condition: undefined };
  }
  ctx.delegations.delegating.add(rgdName);
  const nothing: ContainmentPolicy = { ...declared, authorCheck: true, authorCheckExempt: [] };
  const refuse = (reason: string, message: string): DelegationOutcome => ({
    policy: nothing,
    condition: {
      type: DELEGATION_CONDITION,
      status: "False",
      reason,
      message: `${message}; the delegation is not applied: instance authors are checked as if this RGD delegated nothing`,
    },
  });
  if (!ctx.authorPolicies.standing(DELEGATION_POLICY_KEY).inForce || !ctx.authorPolicies.guarded(DELEGATION_POLICY_KEY))
    await ensureDelegationPolicy(ctx);
  const author = delegationAuthorOf(rgd);
  if (author === undefined)
    return refuse(
      "NoRecordedDelegator",
      `this RGD delegates rights to instance authors, but no ${ANNOTATIONS.delegatedBy} annotation records who wrote the delegation`,
    );
  const unverified = await judgeWrite(ctx, rgd);
  if (unverified !== undefined) return refuse("DelegationUnverified", unverified);

  const nodes = [...graph.nodes, ...lookupAuthorNodes(graph, declared.allowCrossNamespace)];
  const rights = delegatedRights(nodes, declared, await resolveKinds(ctx, delegatedNodes(nodes, declared)));
  const missing: string[] = [];
  const failed = new Set<string>();
  for (const right of rights) {
    const answer = await allowed(ctx, author.user, author.groups, right);
    if (answer === true) continue;
    failed.add(right.nodeId);
    missing.push(
      `may not ${rightText(right)}, which resource "${right.nodeId}" needs${typeof answer === "string" ? ` (${answer})` : ""}`,
    );
  }
  const who = `user ${author.user}${author.groups.length === 0 ? "" : ` (groups ${author.groups.join(",")})`}, who delegates (${ANNOTATIONS.delegatedBy})`;
  if (missing.length === 0) {
    return {
      policy: declared,
      condition: {
        type: DELEGATION_CONDITION,
        status: "True",
        reason: "Verified",
        message: `${who}, holds every delegated right (${rights.length} checked)`,
      },
    };
  }
  const policy: ContainmentPolicy = declared.authorCheck
    ? { ...declared, authorCheckExempt: declared.authorCheckExempt.filter((id) => !failed.has(id)) }
    : { ...declared, authorCheck: true };
  const notApplied = declared.authorCheck
    ? `the exemption of ${[...failed].map((id) => `"${id}"`).join(", ")} is not applied: instance authors need those rights themselves`
    : `${ANNOTATIONS.authorCheck}: Disabled is not applied: instance authors are checked`;
  return {
    policy,
    condition: {
      type: DELEGATION_CONDITION,
      status: "False",
      reason: "DelegatorLacksRights",
      message: `${who}: ${missing.slice(0, 10).join("; ")}${missing.length > 10 ? `; … and ${missing.length - 10} more` : ""}; ${notApplied}`,
    },
  };
}
