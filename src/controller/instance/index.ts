/**
 * instance: one instance reconcile, top to bottom in reconcile.ts — observe, plan (pure), apply,
 * record, status — plus deletion, the ownership record and the decisions it rests on. It may use
 * the watches, helm and context rooms through their doors; it never touches RGDs or CRDs.
 */
export { childOwnerRouter } from "./label-routing.js";
export type { InstanceContext } from "./instance-context.js";
export { reconcileInstance } from "./reconcile.js";
// The bound of the lookup passes, for the migration plan that renders as a reconcile would.
export { MAX_SCOPE_PASSES } from "./scope-settling.js";
export { DEFAULT_EVALUATION_TIMEOUT_MS } from "./runtime-options.js";
// The pure ownership rules, for `kro diff` to preview what a reconcile would do without writing.
export { adoptionPolicy, isUidGuardRefusal, judgeExisting, type AdoptionPolicy } from "./apply-outcome.js";
export { planApplies, withUid, type ApplyStep } from "./apply-plan.js";
export { InventoryFormatError, describeIdentity, readInventory, type Inventory, type OwnedChild } from "./inventory.js";
export type { InstanceIdentity } from "./ownership.js";
export { decideRemoval, type RemovalAction } from "./removal-plan.js";
export { validatedRemovalContext } from "./ownership-checks.js";
