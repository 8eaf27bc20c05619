/**
 * author-policy: the per-RGD ValidatingAdmissionPolicy that holds an instance author to their own
 * rights wherever instance data chooses the scope (the RGD is the grant elsewhere:
 * scope-chooser.ts), and what a chart may look up. Builds and installs policy objects; never reads
 * or writes instances.
 */
export { ensureAuthorPolicy, removeAuthorPolicy, whoAmI } from "./author-policy.js";
export { watchAuthorPolicies } from "./policy-guard.js";
export { watchRequesterWebhooks } from "./requester-webhook.js";
export { RgdAuthorAdmission } from "./rgd-author-admission.js";
export { PolicyBarrier } from "./policy-barrier.js";
export {
  DELEGATION_CONDITION,
  DELEGATION_KEYS,
  delegationWriteKey,
  verifyDelegation,
  type DelegationOutcome,
} from "./delegation-verification.js";
export { ensureDelegationPolicy } from "./delegation-policy.js";
export { proveDelegationPolicyLoaded } from "./policy-load-proof.js";
